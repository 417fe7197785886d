import { describe, expect, test } from 'vitest'
import { QuestHasNoHabits } from './errors.js'
import { join, payoutFor, progressOf, recordCompletion, type Participation } from './participation.js'
import type { QuestHabit } from './quest.js'

const entry = (habitId: string, recurrence: QuestHabit['recurrence']): QuestHabit => ({ habitId, title: habitId, description: '', tags: [], recurrence })
const daily = entry('daily', { type: 'DAILY' })
const weekly = entry('weekly', { type: 'WEEKLY', dayOfWeek: 'MONDAY' })
const monthly = entry('monthly', { type: 'MONTHLY', dayOfMonth: 31 })

function joined(habits: QuestHabit[], joinedAt: string, duration: string, reward = { experience: 100, money: 50 }): Participation {
  let n = 0
  return join({ id: 'q', duration, reward, habits }, { avatarId: 'a', timeZone: 'UTC', joinedAt }, () => `id-${++n}`)
}

const required = (p: Participation) => p.habits.map((h) => h.windows)

describe('required completions: one per window of the copy overlapping [joinedAt, joinedAt + duration)', () => {
  test('a DAILY habit for P1D needs 2 when joined at 10:00 and 1 when joined at midnight', () => {
    expect(required(joined([daily], '2026-03-02T10:00:00', 'P1D'))).toEqual([['2026-03-02', '2026-03-03']])
    expect(required(joined([daily], '2026-03-02T00:00:00', 'P1D'))).toEqual([['2026-03-02']])
  })

  test('a WEEKLY habit: joined Wednesday 4 March for P7D overlaps the weeks from Monday 2 and Monday 9 March', () => {
    const p = joined([weekly], '2026-03-04T10:00:00', 'P7D')
    expect(p.to).toBe('2026-03-11T10:00:00')
    expect(required(p)).toEqual([['2026-03-02', '2026-03-09']])
  })

  test('a MONTHLY habit on the 31st: joined 10 February for P1M overlaps [31 Jan, 28 Feb) and [28 Feb, 31 Mar)', () => {
    expect(required(joined([monthly], '2026-02-10T00:00:00', 'P1M'))).toEqual([['2026-01-31', '2026-02-28']])
  })

  test('PT12H joined at 18:00 crosses midnight: 2 days', () => {
    expect(required(joined([daily], '2026-03-02T18:00:00', 'PT12H'))).toEqual([['2026-03-02', '2026-03-03']])
  })

  test('each copy gets its own id, fixed at the join; the participation starts running', () => {
    const p = joined([daily, weekly], '2026-03-02T10:00:00', 'P1D')
    expect(p.habits.map((h) => h.copyHabitId)).toEqual(['id-1', 'id-2'])
    expect(p).toMatchObject({ id: 'id-3', status: 'IN_PROGRESS', from: '2026-03-02T10:00:00', to: '2026-03-03T10:00:00', copiesMade: false })
  })

  test('a quest without habits cannot be joined', () => {
    expect(() => joined([], '2026-03-02T10:00:00', 'P1D')).toThrow(QuestHasNoHabits)
  })
})

describe('payout: min(reward, 20 experience and 10 money per required completion)', () => {
  test('capped below the reward', () => {
    expect(payoutFor({ experience: 100, money: 50 }, 3)).toEqual({ experience: 60, money: 30 })
  })
  test('the reward when the cap is above it', () => {
    expect(payoutFor({ experience: 100, money: 50 }, 10)).toEqual({ experience: 100, money: 50 })
    expect(payoutFor({ experience: 100, money: 50 }, 5)).toEqual({ experience: 100, money: 50 })
  })
  test('each part on its own', () => {
    expect(payoutFor({ experience: 30, money: 100_000 }, 2)).toEqual({ experience: 30, money: 20 })
    expect(payoutFor({ experience: 0, money: 0 }, 7)).toEqual({ experience: 0, money: 0 })
  })
  test('joining fixes the payout from the quest reward and the required count', () => {
    // DAILY for P1D from 10:00 (2) + WEEKLY (1) = 3 completions: 60 experience, 30 money
    expect(joined([daily, weekly], '2026-03-02T10:00:00', 'P1D').payout).toEqual({ experience: 60, money: 30 })
  })
})

describe('counting completions', () => {
  const start = () => joined([daily, weekly], '2026-03-02T10:00:00', 'P1D')
  const done = (p: Participation) => p.habits.map((h) => h.done)

  test('one per window; the last required one completes the participation', () => {
    let p = start()
    let r = recordCompletion(p, { copyHabitId: 'id-1', windowStart: '2026-03-02', recordedAt: '2026-03-02T11:00:00' })
    expect(r.completed).toBe(false)
    p = r.participation
    // the same window again changes nothing
    expect(recordCompletion(p, { copyHabitId: 'id-1', windowStart: '2026-03-02', recordedAt: '2026-03-02T12:00:00' }).participation).toBe(p)
    p = recordCompletion(p, { copyHabitId: 'id-2', windowStart: '2026-03-02', recordedAt: '2026-03-02T12:00:00' }).participation
    expect(progressOf(p)).toEqual({ required: 3, done: 2, percent: 66 })
    r = recordCompletion(p, { copyHabitId: 'id-1', windowStart: '2026-03-03', recordedAt: '2026-03-03T09:59:59' })
    expect(r.completed).toBe(true)
    expect(r.participation.status).toBe('COMPLETED')
    expect(done(r.participation)).toEqual([['2026-03-02', '2026-03-03'], ['2026-03-02']])
    expect(progressOf(r.participation)).toEqual({ required: 3, done: 3, percent: 100 })
  })

  test('not counted: a window outside the participant window, another habit, a completion recorded after the window closed', () => {
    const p = start()
    expect(recordCompletion(p, { copyHabitId: 'id-1', windowStart: '2026-03-04', recordedAt: '2026-03-03T09:00:00' }).participation).toBe(p)
    expect(recordCompletion(p, { copyHabitId: 'other', windowStart: '2026-03-02', recordedAt: '2026-03-02T11:00:00' }).participation).toBe(p)
    expect(recordCompletion(p, { copyHabitId: 'id-1', windowStart: '2026-03-03', recordedAt: '2026-03-03T10:00:00' }).participation).toBe(p)
  })

  test('not counted once the participation has ended', () => {
    const expired: Participation = { ...start(), status: 'EXPIRED' }
    expect(recordCompletion(expired, { copyHabitId: 'id-1', windowStart: '2026-03-02', recordedAt: '2026-03-02T11:00:00' }).participation).toBe(expired)
  })
})
