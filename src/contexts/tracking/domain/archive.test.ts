import { describe, expect, test } from 'vitest'
import { addDays } from '../../../platform/time/index.js'
import { archive, setArchived, startedWhileArchived, unarchive } from './archive.js'
import { HabitArchived } from './errors.js'
import * as rules from './habit.js'
import { newHabit, type Habit } from './habit.js'
import { judgeMissedWindows } from './missed-windows.js'
import { setReminder } from './reminder.js'
import { ARCHIVED_SPANS_KEPT } from './rules.js'
import { defaultHistory } from './settings.js'

// 2026-03-02 is a Monday. Local times here are UTC's.
const base = { id: 'h', avatarId: 'a', ownerId: 'o', title: 'T', description: '', tags: [], ownTimeZone: null, associatedQuestId: null }
const utc = defaultHistory()
const daily = (today = '2026-03-02'): Habit => newHabit({ ...base, recurrence: { type: 'DAILY' } }, today, utc)
const weekly = (today = '2026-03-02'): Habit => newHabit({ ...base, recurrence: { type: 'WEEKLY', dayOfWeek: 'MONDAY' } }, today, utc)
const window = (start: string, end: string) => ({ start, end })
const instant = (iso: string) => new Date(`${iso}Z`)

describe('archiving and bringing back', () => {
  test('the windows that start while archived are not due: the one under way at archiving is, the one under way at bringing back is not', () => {
    // A weekly habit archived on Wednesday 4 March, brought back on Thursday 19 March.
    const archived = archive(weekly(), '2026-03-04')
    expect(archived).toMatchObject({ archived: true, archivedSpans: [{ from: '2026-03-09', until: null }] })
    const back = unarchive(archived, '2026-03-19')
    expect(back).toMatchObject({ archived: false, archivedSpans: [{ from: '2026-03-09', until: '2026-03-23' }] })
    const due = (start: string, end: string) => rules.isDue(back, utc, window(start, end))
    expect([due('2026-03-02', '2026-03-09'), due('2026-03-09', '2026-03-16'), due('2026-03-16', '2026-03-23'), due('2026-03-23', '2026-03-30')])
      .toEqual([true, false, false, true])
  })

  test('brought back within the window it was archived in, nothing started meanwhile and no span is kept', () => {
    const back = unarchive(archive(daily(), '2026-03-03'), '2026-03-03')
    expect(back).toMatchObject({ archived: false, archivedSpans: [] })
    expect(rules.isDue(back, utc, window('2026-03-04', '2026-03-05'))).toBe(true)
  })

  test('asking for what the habit is already changes nothing; the latest spans are kept', () => {
    const h = daily()
    expect(setArchived(h, false, '2026-03-05')).toBe(h)
    const archived = archive(h, '2026-03-05')
    expect(setArchived(archived, true, '2026-03-09')).toBe(archived)
    let cycled = h
    // Archived on every other day from 1 April, brought back the next.
    for (let i = 0; i < ARCHIVED_SPANS_KEPT + 2; i++) cycled = unarchive(archive(cycled, addDays('2026-04-01', 2 * i)), addDays('2026-04-01', 2 * i + 1))
    expect(cycled.archivedSpans).toHaveLength(ARCHIVED_SPANS_KEPT)
    expect(cycled.archivedSpans[0]).toEqual({ from: '2026-04-06', until: '2026-04-07' })
    expect(startedWhileArchived(cycled, '2026-04-02')).toBe(false)
  })

  test('an archived habit is not attended, not judged and not reminded of; its reminder time is kept', () => {
    const h = archive({ ...daily(), reminderTime: '09:00' }, '2026-03-02')
    expect(() => rules.attend(h, utc, new Set(), '2026-03-02T08:00:00', instant('2026-03-02T09:00:00'))).toThrow(HabitArchived)
    const judged = judgeMissedWindows(h, utc, new Set(), instant('2026-03-20T00:00:00'), 400)
    expect(judged.judged).toEqual([])
    expect(judged.habit).toBe(h)
    expect(setReminder(h, { timeZone: 'UTC', dayStartHour: 0 }, '09:00', instant('2026-03-02T08:00:00'))).toMatchObject({ reminderTime: '09:00', remindAt: null })
  })

  test('brought back, the job judges the window under way at archiving, and the others as not due', () => {
    // Archived on 3 March, brought back on 6 March: judged on 8 March, 3 March is missed, 4 to 7 March not due.
    const back = unarchive(archive(daily(), '2026-03-03'), '2026-03-06')
    const { judged } = judgeMissedWindows(back, utc, new Set(), instant('2026-03-08T00:00:00'), 400)
    expect(judged.map((j) => [j.window.start, j.outcome])).toEqual([
      ['2026-03-03', 'MISSED'], ['2026-03-04', 'NOT_DUE'], ['2026-03-05', 'NOT_DUE'], ['2026-03-06', 'NOT_DUE'], ['2026-03-07', 'MISSED'],
    ])
  })

  test('a streak carries over the windows that started while archived', () => {
    let h = daily()
    const slots = new Set<string>()
    for (const day of ['2026-03-02', '2026-03-03']) {
      const a = rules.attend(h, utc, slots, `${day}T08:00:00`, instant(`${day}T09:00:00`))
      h = a.habit
      slots.add(a.slot)
    }
    h = unarchive(archive(h, '2026-03-03'), '2026-03-10')
    // 4 to 10 March started while archived: the run of two goes on.
    expect(rules.currentStreak(h, utc, instant('2026-03-11T09:00:00'))).toBe(2)
    const next = rules.attend(h, utc, slots, '2026-03-11T08:00:00', instant('2026-03-11T09:00:00'))
    expect(next.streak).toBe(3)
  })
})
