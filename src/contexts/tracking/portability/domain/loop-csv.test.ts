import { describe, expect, test } from 'vitest'
import { BEGINNING } from '../../domain/settings.js'
import { InvalidImport } from './errors.js'
import { parseCsv, plansFromLoop, recurrenceOfFrequency, type LoopFiles } from './loop-csv.js'

const frame = { today: '2026-03-10', dayStartHour: 4 }
const HABITS = 'Position,Name,Type,Question,Description,FrequencyNumerator,FrequencyDenominator,Color,Unit,Target Type,Target Value,Archived?\n' +
  '001,Stretch,YES_NO,,,1,1,#FF8F00,,,,false\n' +
  '002,Water,NUMERICAL,Glasses?,,1,1,#388E3C,glasses,AT_LEAST,8,false\n'
const pair = (checkmarks: string): LoopFiles => ({ habits: { path: '/habits', text: HABITS }, checkmarks: { path: '/checkmarks', text: checkmarks } })

function refusal(files: LoopFiles): unknown {
  try {
    plansFromLoop(files, frame)
  } catch (e) {
    if (e instanceof InvalidImport) return e.errors?.[0]
    throw e
  }
  return undefined
}

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
})

describe("Loop's frequency as a recurrence", () => {
  test('daily, n times a week, once every n days, and the nearest weekly count for other rates', () => {
    expect(recurrenceOfFrequency(1, 1)).toEqual({ type: 'DAILY' })
    expect(recurrenceOfFrequency(3, 7)).toEqual({ type: 'TIMES_PER_WEEK', timesPerWeek: 3 })
    expect(recurrenceOfFrequency(1, 3)).toEqual({ type: 'EVERY_N_DAYS', everyNDays: 3, anchor: BEGINNING })
    // 2 in 10 days is 1.4 a week: once.
    expect(recurrenceOfFrequency(2, 10)).toEqual({ type: 'TIMES_PER_WEEK', timesPerWeek: 1 })
  })
})

describe('a Loop export read into plans', () => {
  test('YES_MANUAL days (and a numerical habit\'s positive values) are completions at the day\'s start; SKIP is a not-due day; YES_AUTO is not done', () => {
    const [stretch, water] = plansFromLoop(pair('Date,Stretch,Water,\n2026-03-09,YES_MANUAL,0,\n2026-03-08,SKIP,2.5,\n2026-03-07,YES_AUTO,,\n2026-03-06,2,UNKNOWN,\n'), frame)
    expect(stretch!.completions).toEqual([{ slot: '2026-03-06', attendedAt: '2026-03-06T04:00:00' }, { slot: '2026-03-09', attendedAt: '2026-03-09T04:00:00' }])
    expect(stretch!.judged).toEqual([{ windowStart: '2026-03-08', outcome: 'NOT_DUE' }])
    expect(water!.completions).toEqual([{ slot: '2026-03-08', attendedAt: '2026-03-08T04:00:00' }])
    expect(water!.template).toMatchObject({ title: 'Water', description: 'Glasses?' })
  })

  test('an EVERY_N_DAYS habit counts its windows from its first done day, one completion a window', () => {
    const files: LoopFiles = {
      habits: { path: '/Habits.csv', text: 'Position,Name,Description,NumRepetitions,Interval,Color\n1,Plants,,1,3,#000000\n' },
      perHabit: new Map([['1', { path: '/001 Plants/Checkmarks.csv', text: 'Date,Value\n2026-03-05,2\n2026-03-03,2\n2026-03-02,2\n' }]]),
    }
    const [plants] = plansFromLoop(files, frame)
    expect(plants!.template.recurrence).toEqual({ type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '2026-03-02' })
    // Windows 2–4 March (done on the 2nd, again on the 3rd: one completion) and 5–7 March.
    expect(plants!.completions.map((c) => c.slot)).toEqual(['2026-03-02', '2026-03-05'])
  })

  test('a refusal names the file, the line and the field', () => {
    expect(refusal(pair('Date,Stretch,Water,\n2026-03-09,YES_MANUAL,1,\n2026-3-8,NO,1,\n'))).toMatchObject({ path: '/checkmarks', line: 3, field: 'Date' })
    expect(refusal(pair('Date,Stretch,Water,\n2026-03-09,PERHAPS,1,\n'))).toMatchObject({ path: '/checkmarks', line: 2, field: 'Stretch' })
    expect(refusal(pair('Date,Stretch,Water,\n2026-03-09,NO,lots,\n'))).toMatchObject({ line: 2, field: 'Water' })
    expect(refusal(pair('Date,Stretch,Yoga,\n'))).toMatchObject({ line: 1, field: 'Yoga' })
    expect(refusal(pair('Date,Stretch,\n1999-01-01,YES_MANUAL,\n'))).toMatchObject({ line: 2, field: 'Date', message: expect.stringContaining('from') })
    expect(refusal({ habits: { path: '/habits', text: 'Position,Name\n001,\n' } })).toMatchObject({ path: '/habits', line: 2, field: 'Name' })
    expect(refusal({ habits: { path: '/habits', text: 'Position,Title\n' } })).toMatchObject({ line: 1, field: 'Name' })
  })
})
