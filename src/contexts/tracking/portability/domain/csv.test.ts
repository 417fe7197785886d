import { describe, expect, test } from 'vitest'
import { parseCsv, splitFirstLine } from './csv.js'

describe('CSV records', () => {
  test('quoted fields may hold commas, quotes and line breaks; each record keeps the line it starts on', () => {
    const records = parseCsv({ path: '/x', text: '\uFEFFa,b\r\n"x, ""y""",2\n\n"multi\nline",3\nlast,' })
    expect(records).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['x, "y"', '2'] },
      { line: 4, cells: ['multi\nline', '3'] },
      { line: 6, cells: ['last', ''] },
    ])
  })

  test('a text cut after its header counts its lines from where it was cut', () => {
    expect(parseCsv({ path: '/x', text: 'a,1\nb,2\n' }, { firstLine: 2 })).toEqual([{ line: 2, cells: ['a', '1'] }, { line: 3, cells: ['b', '2'] }])
  })

  test('the first line is taken as written, quotes and all', () => {
    expect(splitFirstLine('\uFEFFDate,Say "hi",\r\n2026-03-01,NO,\n')).toEqual({ first: 'Date,Say "hi",', rest: '2026-03-01,NO,\n' })
    expect(splitFirstLine('Date,')).toEqual({ first: 'Date,', rest: '' })
  })
})
