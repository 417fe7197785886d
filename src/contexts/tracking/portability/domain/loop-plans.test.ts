import { describe, expect, test } from 'vitest'
import { loopExport, NO, SKIP, YES_AUTO, YES_MANUAL, type LoopExport, type LoopHabitFixture } from '../../../../../test/support/loop-export.js'
import { InvalidImport } from './errors.js'
import type { HabitPlan } from './import.js'
import { plansFromLoop, type LoopFiles } from './loop-plans.js'

// Tuesday 10 March 2026; days start at 04:00.
const frame = { today: '2026-03-10', dayStartHour: 4 }
const at = (day: string) => `${day}T04:00:00`

const source = (e: LoopExport, path: string) => ({ path: `/${path}`, text: e.text(path) })
/** The export's files as the zip holds them: each habit's own Checkmarks.csv (read first). */
const perHabitFiles = (e: LoopExport): LoopFiles => ({
  habits: source(e, 'Habits.csv'),
  perHabit: new Map(e.files.filter(([p]) => /^\d+[^/]*\/Checkmarks\.csv$/.test(p)).map(([p]) => [Number(p.slice(0, 3)), source(e, p)])),
})
/** The two files of the `{habits, checkmarks}` form: the top-level Checkmarks.csv, one column per habit. */
const topLevelFiles = (e: LoopExport): LoopFiles => ({ habits: source(e, 'Habits.csv'), checkmarks: source(e, 'Checkmarks.csv') })

/** The plans of the export read both ways, which must agree. */
function plansOf(habits: LoopHabitFixture[], exported?: LoopHabitFixture[]): HabitPlan[] {
  const e = loopExport(habits, frame.today, exported)
  const plans = plansFromLoop(perHabitFiles(e), frame)
  expect(plansFromLoop(topLevelFiles(e), frame)).toEqual(plans)
  return plans
}
const historyOf = (plan: HabitPlan | undefined) => ({ completions: plan!.completions, judged: plan!.judged })

function refusal(files: LoopFiles): unknown {
  try {
    plansFromLoop(files, frame)
  } catch (e) {
    if (e instanceof InvalidImport) return e.errors?.[0]
    throw e
  }
  return undefined
}

describe("a numerical habit's day is done only when Loop's target is met", () => {
  test('AT_LEAST 2.0 miles a day: 0.1 and 1.0 fall short (missed), 2.0 and 2.5 are done; a skipped day is not due; today, short, is left open', () => {
    const [run] = plansOf([{
      name: 'Run', numerical: { unit: 'miles', targetType: 'AT_LEAST', targetValue: 2 },
      entries: [{ date: '2026-03-02', value: 100 }, { date: '2026-03-03', value: 1000 }, { date: '2026-03-04', value: 2000 }, { date: '2026-03-05', value: 2500 },
        { date: '2026-03-06', value: SKIP }, { date: '2026-03-10', value: 500 }],
    }])
    expect(historyOf(run)).toEqual({
      completions: [{ slot: '2026-03-04', attendedAt: at('2026-03-04') }, { slot: '2026-03-05', attendedAt: at('2026-03-05') }],
      judged: [{ windowStart: '2026-03-02', outcome: 'MISSED' }, { windowStart: '2026-03-03', outcome: 'MISSED' }, { windowStart: '2026-03-06', outcome: 'NOT_DUE' }],
    })
  })

  test('AT_MOST 2 cups a day: 3 is not done; 2, and 0 (which Loop writes NO), are', () => {
    const [coffee] = plansOf([{
      name: 'Coffee', numerical: { unit: 'cups', targetType: 'AT_MOST', targetValue: 2 },
      entries: [{ date: '2026-03-02', value: 3000 }, { date: '2026-03-03', value: 2000 }, { date: '2026-03-04', value: NO }],
    }])
    expect(historyOf(coffee)).toEqual({
      completions: [{ slot: '2026-03-03', attendedAt: at('2026-03-03') }, { slot: '2026-03-04', attendedAt: at('2026-03-04') }],
      judged: [{ windowStart: '2026-03-02', outcome: 'MISSED' }],
    })
  })

  test("a weekly target is met by the week's sum, on the day it is reached", () => {
    const [ride] = plansOf([{
      name: 'Ride', numerator: 1, denominator: 7, numerical: { unit: 'km', targetType: 'AT_LEAST', targetValue: 10 },
      // Week of 23 February: 3 km (short); week of 2 March: 4 + 5 + 2 = 11 km, reached on the 6th.
      entries: [{ date: '2026-02-24', value: 3000 }, { date: '2026-03-02', value: 4000 }, { date: '2026-03-04', value: 5000 }, { date: '2026-03-06', value: 2000 }],
    }])
    expect(ride!.template.recurrence).toEqual({ type: 'TIMES_PER_WEEK', timesPerWeek: 1 })
    expect(historyOf(ride)).toEqual({ completions: [{ slot: '2026-03-06', attendedAt: at('2026-03-06') }], judged: [{ windowStart: '2026-02-23', outcome: 'MISSED' }] })
  })
})

describe("Loop's NO makes a missed window", () => {
  test('a DAILY habit: YES_MANUAL done, NO missed, SKIP not due, a day Loop knows nothing of left alone, and today open', () => {
    const [stretch] = plansOf([{
      name: 'Stretch',
      entries: [{ date: '2026-03-05', value: YES_MANUAL }, { date: '2026-03-06', value: NO }, { date: '2026-03-08', value: SKIP },
        { date: '2026-03-09', value: NO }, { date: '2026-03-10', value: NO }],
    }])
    expect(historyOf(stretch)).toEqual({
      completions: [{ slot: '2026-03-05', attendedAt: at('2026-03-05') }],
      judged: [{ windowStart: '2026-03-06', outcome: 'MISSED' }, { windowStart: '2026-03-08', outcome: 'NOT_DUE' }, { windowStart: '2026-03-09', outcome: 'MISSED' }],
    })
  })

  test('three times a week: a week ended short with a NO day is missed (its completions kept); a done week and the week under way are not judged', () => {
    const [gym] = plansOf([{
      name: 'Gym', numerator: 3, denominator: 7,
      entries: [
        { date: '2026-02-23', value: YES_MANUAL }, { date: '2026-02-24', value: YES_AUTO }, { date: '2026-02-25', value: YES_MANUAL }, { date: '2026-02-27', value: NO },
        { date: '2026-03-02', value: YES_MANUAL }, { date: '2026-03-03', value: YES_MANUAL }, { date: '2026-03-04', value: NO }, { date: '2026-03-05', value: YES_MANUAL },
        { date: '2026-03-09', value: NO },
      ],
    }])
    expect(gym!.completions.map((c) => c.slot)).toEqual(['2026-02-23', '2026-02-25', '2026-03-02', '2026-03-03', '2026-03-05'])
    expect(gym!.judged).toEqual([{ windowStart: '2026-02-23', outcome: 'MISSED' }])
  })
})

describe('which habits, and their columns', () => {
  test("the top-level Checkmarks.csv's unquoted header is cut by the names of Habits.csv, commas and quotes in names and all", () => {
    const habits: LoopHabitFixture[] = [
      { name: 'Read', entries: [{ date: '2026-03-09', value: YES_MANUAL }] },
      { name: 'Read, write', entries: [{ date: '2026-03-08', value: YES_MANUAL }] },
      { name: '"Quoted", she said', entries: [{ date: '2026-03-07', value: NO }] },
    ]
    const e = loopExport(habits, frame.today)
    expect(e.text('Checkmarks.csv').split('\n')[0]).toBe('Date,Read,Read, write,"Quoted", she said,')
    const plans = plansFromLoop(topLevelFiles(e), frame)
    expect(plans.map((p) => [p.template.title, p.completions.map((c) => c.slot), p.judged.map((j) => j.windowStart)])).toEqual([
      ['Read', ['2026-03-09'], []], ['Read, write', ['2026-03-08'], []], ['"Quoted", she said', [], ['2026-03-07']],
    ])
  })

  test('an export of some habits (Habits.csv lists them all) makes only those it holds days of', () => {
    const habits: LoopHabitFixture[] = [{ name: 'A', entries: [] }, { name: 'A, B', entries: [{ date: '2026-03-09', value: YES_MANUAL }] }]
    const [only, ...rest] = plansOf(habits, [habits[1]!])
    expect(rest).toEqual([])
    expect(only!.template.title).toBe('A, B')
  })

  test('an EVERY_N_DAYS habit counts its windows from its first done day, one completion a window', () => {
    const files: LoopFiles = {
      habits: { path: '/Habits.csv', text: 'Position,Name,Description,NumRepetitions,Interval,Color\n1,Plants,,1,3,#000000\n' },
      perHabit: new Map([[1, { path: '/001 Plants/Checkmarks.csv', text: 'Date,Value\n2026-03-05,2\n2026-03-03,2\n2026-03-02,2\n' }]]),
    }
    const [plants] = plansFromLoop(files, frame)
    expect(plants!.template.recurrence).toEqual({ type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '2026-03-02' })
    // Windows 2–4 March (done on the 2nd, again on the 3rd: one completion) and 5–7 March.
    expect(plants!.completions.map((c) => c.slot)).toEqual(['2026-03-02', '2026-03-05'])
  })
})

describe('refusals', () => {
  const HABITS = 'Position,Name,Type,Question,Description,FrequencyNumerator,FrequencyDenominator,Color,Unit,Target Type,Target Value,Archived?\n' +
    '001,Stretch,YES_NO,,,1,1,#FF8F00,,,,false\n' +
    '002,Water,NUMERICAL,Glasses?,,1,1,#388E3C,glasses,AT_LEAST,8.0,false\n'
  const pair = (checkmarks: string): LoopFiles => ({ habits: { path: '/habits', text: HABITS }, checkmarks: { path: '/checkmarks', text: checkmarks } })

  test('a refusal names the file, the line and the field', () => {
    expect(refusal(pair('Date,Stretch,Water,\n2026-03-09,YES_MANUAL,1000,\n2026-3-8,NO,1000,\n'))).toMatchObject({ path: '/checkmarks', line: 3, field: 'Date' })
    expect(refusal(pair('Date,Stretch,Water,\n2026-03-09,PERHAPS,1000,\n'))).toMatchObject({ path: '/checkmarks', line: 2, field: 'Stretch' })
    expect(refusal(pair('Date,Stretch,Water,\n2026-03-09,NO,lots,\n'))).toMatchObject({ line: 2, field: 'Water' })
    // Loop writes thousandths: 2.5 glasses is 2500.
    expect(refusal(pair('Date,Stretch,Water,\n2026-03-09,NO,2.5,\n'))).toMatchObject({ line: 2, field: 'Water', message: expect.stringContaining('thousandths') })
    expect(refusal(pair('Date,Stretch,Yoga,\n'))).toMatchObject({ line: 1, field: 'Yoga' })
    expect(refusal(pair('Date,Stretch,\n1999-01-01,YES_MANUAL,\n'))).toMatchObject({ line: 2, field: 'Date', message: expect.stringContaining('from') })
    expect(refusal(pair('Day,Stretch,\n'))).toMatchObject({ line: 1, field: 'Date' })
    expect(refusal({ habits: { path: '/habits', text: HABITS }, perHabit: new Map([[7, { path: '/007 Yoga/Checkmarks.csv', text: 'Date,Value,Notes\n' }]]) }))
      .toMatchObject({ path: '/007 Yoga/Checkmarks.csv', line: 1 })
  })
})
