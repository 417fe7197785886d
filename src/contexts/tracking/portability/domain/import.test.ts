import { describe, expect, test } from 'vitest'
import { defaultHistory } from '../../domain/settings.js'
import { ImportTooLarge, InvalidImport } from './errors.js'
import { chooseAvatar, importedHabit, plansFromDocument, streaksOf, type ImportDocument, type ImportedRecord } from './import.js'
import { IMPORT_HABITS_MAX, IMPORT_ROWS_MAX } from './rules.js'

const frame = { today: '2026-03-10', dayStartHour: 0 }
const ids = { id: 'h1', avatarId: 'a1', ownerId: 'o1' }
const record = (over: Partial<ImportedRecord> = {}): ImportedRecord => ({
  habit: { title: ' Read ', recurrence: { type: 'DAILY' }, ...over.habit },
  completions: over.completions ?? [],
  ...(over.missed ? { missed: over.missed } : {}),
  ...(over.frozen ? { frozen: over.frozen } : {}),
})
const doc = (...records: ImportedRecord[]): ImportDocument => ({ avatars: [{ avatar: { id: 'first' }, habits: records }, { avatar: { id: 'second' }, habits: [] }] })
const done = (...days: string[]) => days.map((d) => ({ windowStart: d, attendedAt: `${d}T07:00:00` }))

/** The refusal a plan of `r` meets, as the API shows it. */
function refusal(r: ImportedRecord): unknown {
  try {
    plansFromDocument(doc(r), 0, frame)
  } catch (e) {
    if (e instanceof InvalidImport) return e.errors?.[0]
    throw e
  }
  return undefined
}

describe('an export document read into plans', () => {
  test('each field is checked and named by its JSON pointer', () => {
    expect(refusal(record({ completions: [{ windowStart: '2026-03-02', attendedAt: '2 March' }] })))
      .toEqual({ path: '/avatars/0/habits/0/completions/0/attendedAt', message: expect.stringContaining('local date-time') })
    expect(refusal(record({ completions: done('2026-03-02', '2026-03-02') })))
      .toMatchObject({ path: '/avatars/0/habits/0/completions/1/windowStart', message: 'must not repeat an earlier completion' })
    // A WEEKLY (Sunday) habit's window starts on a Sunday: 8 March 2026 was one, the 9th is not.
    expect(refusal(record({ habit: { title: 'Call', recurrence: { type: 'WEEKLY', dayOfWeek: 'SUNDAY' } }, completions: done('2026-03-09') })))
      .toMatchObject({ path: '/avatars/0/habits/0/completions/0/windowStart', message: expect.stringContaining('2026-03-08') })
    expect(refusal(record({ frozen: [{ windowStart: '2026-03-05' }, { windowStart: '2026-03-05' }] })))
      .toMatchObject({ path: '/avatars/0/habits/0/frozen/1/windowStart' })
    // History may reach tomorrow (an attend may be a day ahead), no further.
    expect(refusal(record({ completions: done('2026-03-12') }))).toMatchObject({ path: '/avatars/0/habits/0/completions/0/windowStart' })
    expect(refusal(record({ habit: { title: 'Read', recurrence: { type: 'DAILY' }, timeZone: 'Mars/Olympus' } })))
      .toMatchObject({ path: '/avatars/0/habits/0/habit/timeZone' })
    expect(refusal(record({ completions: done('2026-03-02', '2026-03-04') }))).toBeUndefined()
  })

  test('?avatar= picks an avatar by id or by index; anything else names the query parameter', () => {
    expect(chooseAvatar(doc(), undefined)).toBe(0)
    expect(chooseAvatar(doc(), 'second')).toBe(1)
    expect(chooseAvatar(doc(), '1')).toBe(1)
    expect(() => chooseAvatar(doc(), '2')).toThrow(InvalidImport)
  })

  test('more habits or history rows than one import takes are refused whole (413)', () => {
    const many = { avatars: [{ habits: Array.from({ length: IMPORT_HABITS_MAX + 1 }, () => record()) }] }
    expect(() => plansFromDocument(many, 0, frame)).toThrow(ImportTooLarge)
    const long = record({ completions: Array.from({ length: IMPORT_ROWS_MAX + 1 }, () => ({ windowStart: '2026-03-01', attendedAt: '2026-03-01T07:00:00' })) })
    expect(() => plansFromDocument(doc(long), 0, frame)).toThrow(ImportTooLarge)
  })
})

describe('the state of an imported habit, from its history', () => {
  test('runs of done windows carry over frozen and not-due windows and end at a missed one', () => {
    // 1 2 _ 4 5 F 7 | 9 (8 missed): runs 2, then 4..7 over the frozen 6th makes 3, then 1.
    const [plan] = plansFromDocument(doc(record({
      completions: done('2026-03-01', '2026-03-02', '2026-03-04', '2026-03-05', '2026-03-07', '2026-03-09'),
      missed: [{ windowStart: '2026-03-03', outcome: 'MISSED' }, { windowStart: '2026-03-08', outcome: 'MISSED' }],
      frozen: [{ windowStart: '2026-03-06' }],
    })), 0, frame)
    const h = importedHabit(plan!, ids, defaultHistory(), frame.today)
    expect(h).toMatchObject({
      title: 'Read', firstWindowStart: '2026-03-01', lastAttendedAt: '2026-03-09T07:00:00', lastCompletedWindowStart: '2026-03-09',
      streak: 1, bestStreak: 3, frozenWindows: ['2026-03-06'], associatedQuestId: null,
    })
    // The missed-window job starts at today's window, as for a new habit: the imported past is never judged.
    expect(h.missCheckFrom).toBe('2026-03-11')
  })

  test('a TIMES_PER_WEEK habit counts done weeks; a week short ends the run', () => {
    const weekly = { type: 'TIMES_PER_WEEK' as const, timesPerWeek: 2 }
    // Weeks of 16 Feb (2 done), 23 Feb (1: short), 2 Mar (2 done).
    expect(streaksOf(weekly, '2026-02-16', new Set(['2026-02-16', '2026-03-02']), () => false))
      .toEqual({ lastCompletedWindowStart: '2026-03-02', streak: 1, bestStreak: 1 })
    expect(streaksOf(weekly, '2026-02-16', new Set(['2026-02-16', '2026-03-02']), () => true))
      .toEqual({ lastCompletedWindowStart: '2026-03-02', streak: 2, bestStreak: 2 })
    expect(streaksOf({ type: 'DAILY' }, '2026-02-16', new Set(), () => false)).toEqual({ lastCompletedWindowStart: null, streak: 0, bestStreak: 0 })
  })
})
