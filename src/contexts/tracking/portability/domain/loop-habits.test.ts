import { describe, expect, test } from 'vitest'
import { loopExport } from '../../../../../test/support/loop-export.js'
import { BEGINNING } from '../../domain/settings.js'
import { InvalidImport } from './errors.js'
import { loopRecurrence, readLoopHabits, recurrenceOfFrequency } from './loop-habits.js'

const habitsCsv = (text: string) => ({ path: '/Habits.csv', text })

function refusal(text: string): unknown {
  try {
    readLoopHabits(habitsCsv(text))
  } catch (e) {
    if (e instanceof InvalidImport) return e.errors?.[0]
    throw e
  }
  return undefined
}

describe("Loop's frequency as a recurrence", () => {
  test('daily, n times a week, once every n days, and the nearest weekly count for other rates', () => {
    expect(recurrenceOfFrequency(1, 1)).toEqual({ type: 'DAILY' })
    expect(recurrenceOfFrequency(3, 7)).toEqual({ type: 'TIMES_PER_WEEK', timesPerWeek: 3 })
    expect(recurrenceOfFrequency(1, 3)).toEqual({ type: 'EVERY_N_DAYS', everyNDays: 3, anchor: BEGINNING })
    // 2 in 10 days is 1.4 a week: once.
    expect(recurrenceOfFrequency(2, 10)).toEqual({ type: 'TIMES_PER_WEEK', timesPerWeek: 1 })
  })

  test("a numerical habit's window is the span of its target: a day, a week, a calendar month", () => {
    const target = { type: 'AT_LEAST' as const, value: 10, unit: 'km' }
    expect(loopRecurrence({ target, numerator: 1, denominator: 1 })).toEqual({ type: 'DAILY' })
    expect(loopRecurrence({ target, numerator: 1, denominator: 7 })).toEqual({ type: 'TIMES_PER_WEEK', timesPerWeek: 1 })
    expect(loopRecurrence({ target, numerator: 1, denominator: 30 })).toEqual({ type: 'MONTHLY', dayOfMonth: 1 })
    // A yes/no habit's 1 in 30 days stays every 30 days.
    expect(loopRecurrence({ target: null, numerator: 1, denominator: 30 })).toEqual({ type: 'EVERY_N_DAYS', everyNDays: 30, anchor: BEGINNING })
  })
})

describe('Habits.csv', () => {
  test("every column Loop writes is read: a quoted name, the question and description, a numerical habit's target, Archived?", () => {
    const csv = loopExport([
      { name: 'Read, write', question: 'Did you write?', description: 'A page, "at least"', archived: true, entries: [] },
      { name: 'Run', numerator: 1, denominator: 7, numerical: { unit: 'miles', targetType: 'AT_LEAST', targetValue: 2 }, entries: [] },
      { name: 'Coffee', numerical: { unit: 'cups', targetType: 'AT_MOST', targetValue: 2.5 }, entries: [] },
    ], '2026-03-10').text('Habits.csv')
    expect(csv).toContain('001,"Read, write",YES_NO,Did you write?,"A page, ""at least""",1,1,#FF8F00,,,,true\n')
    expect(readLoopHabits(habitsCsv(csv))).toEqual([
      { line: 2, position: 1, rawName: 'Read, write', name: 'Read, write', description: 'Did you write?\nA page, "at least"', target: null, numerator: 1, denominator: 1, archived: true },
      { line: 3, position: 2, rawName: 'Run', name: 'Run', description: '', target: { type: 'AT_LEAST', value: 2, unit: 'miles' }, numerator: 1, denominator: 7, archived: false },
      { line: 4, position: 3, rawName: 'Coffee', name: 'Coffee', description: '', target: { type: 'AT_MOST', value: 2.5, unit: 'cups' }, numerator: 1, denominator: 1, archived: false },
    ])
  })

  test("an older export's columns (no Type: yes/no habits) are read too", () => {
    expect(readLoopHabits(habitsCsv('Position,Name,Description,NumRepetitions,Interval,Color\n1,Plants,,1,3,#000000\n'))).toEqual([
      { line: 2, position: 1, rawName: 'Plants', name: 'Plants', description: '', target: null, numerator: 1, denominator: 3, archived: false },
    ])
  })

  test('a refusal names the line and the column', () => {
    const header = 'Position,Name,Type,Question,Description,FrequencyNumerator,FrequencyDenominator,Color,Unit,Target Type,Target Value,Archived?\n'
    expect(refusal(`${header}001,Run,COUNTED,,,1,1,#FF8F00,,,,false\n`)).toMatchObject({ line: 2, field: 'Type' })
    expect(refusal(`${header}001,Run,NUMERICAL,,,1,1,#FF8F00,km,ABOUT,2.0,false\n`)).toMatchObject({ line: 2, field: 'Target Type' })
    expect(refusal(`${header}001,Run,NUMERICAL,,,1,1,#FF8F00,km,AT_LEAST,,false\n`)).toMatchObject({ line: 2, field: 'Target Value' })
    expect(refusal(`${header}001,Run,YES_NO,,,1,1,#FF8F00,,,,maybe\n`)).toMatchObject({ line: 2, field: 'Archived?' })
    expect(refusal(`${header}001,Run,YES_NO,,,1,1,#FF8F00,,,,false\n001,Walk,YES_NO,,,1,1,#FF8F00,,,,false\n`)).toMatchObject({ line: 3, field: 'Position' })
    expect(refusal('Position,Name\n001,\n')).toMatchObject({ path: '/Habits.csv', line: 2, field: 'Name' })
    expect(refusal('Position,Title\n')).toMatchObject({ line: 1, field: 'Name' })
  })
})
