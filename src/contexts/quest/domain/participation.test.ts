import { describe, expect, test } from 'vitest'
import { QuestHasNoHabits } from './errors.js'
import { firstDayOf, join, payoutFor, progressOf, recordCompletion, type Completion, type Participation } from './participation.js'
import type { QuestHabit } from './quest.js'

const entry = (habitId: string, recurrence: QuestHabit['recurrence']): QuestHabit => ({ habitId, title: habitId, description: '', tags: [], recurrence })
const daily = entry('daily', { type: 'DAILY' })
const weekly = entry('weekly', { type: 'WEEKLY', dayOfWeek: 'MONDAY' })
const monthly = entry('monthly', { type: 'MONTHLY', dayOfMonth: 31 })
const twiceAWeek = entry('twice', { type: 'TIMES_PER_WEEK', timesPerWeek: 2 })
// As a quest stores its entry: not anchored yet (tracking's placeholder, the first day of year 1).
const everyThirdDay = entry('third', { type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '0001-01-01' })

function joined(habits: QuestHabit[], joinedAt: string, duration: string, reward = { experience: 100, money: 50 }, frame = { timeZone: 'UTC', dayStartHour: 0 }): Participation {
  let n = 0
  return join({ id: 'q', duration, reward, habits }, { avatarId: 'a', frame, joinedAt }, () => `id-${++n}`)
}
/** Joined by an avatar whose days start at 04:00. */
const joinedEarlyBird = (habits: QuestHabit[], joinedAt: string, duration: string) =>
  joined(habits, joinedAt, duration, undefined, { timeZone: 'Asia/Tokyo', dayStartHour: 4 })

const required = (p: Participation) => p.habits.map((h) => h.windows)
/** A completion that made its window done, unless said otherwise. */
const completion = (copyHabitId: string, windowStart: string, recordedAt: string, windowCompleted = true): Completion =>
  ({ copyHabitId, windowStart, recordedAt, windowCompleted })

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

  test('a TIMES_PER_WEEK habit: one done week per ISO week overlapped, the first being the week of the join', () => {
    // Joined Wednesday 4 March for P7D: until Wednesday 11 March, so the weeks from Monday 2 and Monday 9 March.
    expect(required(joined([twiceAWeek], '2026-03-04T10:00:00', 'P7D'))).toEqual([['2026-03-02', '2026-03-09']])
    // Joined Sunday 8 March at 23:00 for two hours: the last hour of one week and the first of the next.
    expect(required(joined([twiceAWeek], '2026-03-08T23:00:00', 'PT2H'))).toEqual([['2026-03-02', '2026-03-09']])
    // Joined Monday at midnight for P7D: exactly one week.
    expect(required(joined([twiceAWeek], '2026-03-09T00:00:00', 'P7D'))).toEqual([['2026-03-09']])
  })

  test('an EVERY_N_DAYS habit counts its windows from the join day, and the copy is made with that anchor', () => {
    // Joined Wednesday 4 March 10:00 for P7D (until 11 March 10:00): 3-day windows from 4, 7 and 10 March;
    // the last one starts before the end and runs past it (to 13 March), and still needs its completion.
    const p = joined([everyThirdDay], '2026-03-04T10:00:00', 'P7D')
    expect(required(p)).toEqual([['2026-03-04', '2026-03-07', '2026-03-10']])
    expect(p.habits[0]!.habit.recurrence).toEqual({ type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '2026-03-04' })
    // Joined at midnight for P6D: the window from 10 March starts as the participation ends, so it is not needed.
    expect(required(joined([everyThirdDay], '2026-03-04T00:00:00', 'P6D'))).toEqual([['2026-03-04', '2026-03-07']])
    // The other types keep their recurrence as the quest has it.
    expect(joined([twiceAWeek, daily], '2026-03-04T10:00:00', 'P1D').habits.map((h) => h.habit.recurrence))
      .toEqual([{ type: 'TIMES_PER_WEEK', timesPerWeek: 2 }, { type: 'DAILY' }])
  })

  test('two participants joining on different days count from their own join days', () => {
    expect(required(joined([everyThirdDay], '2026-03-05T08:00:00', 'P3D'))).toEqual([['2026-03-05', '2026-03-08']])
    expect(required(joined([everyThirdDay], '2026-03-06T08:00:00', 'P3D'))).toEqual([['2026-03-06', '2026-03-09']])
  })

  test('a quest without habits cannot be joined', () => {
    expect(() => joined([], '2026-03-02T10:00:00', 'P1D')).toThrow(QuestHasNoHabits)
  })
})

describe("the participant's days: from its day start hour, as its copies count them", () => {
  test('joined at 02:00 with days from 04:00: the first window is the day before, and none opens after the end', () => {
    // [4 March 02:00, 6 March 02:00). The days are 3 March (until 4 March 04:00), 4 March and 5 March
    // (until 6 March 04:00); 6 March begins at 04:00, after the end, so it is not required (from
    // midnight it would be, and could only be done once the quest was over).
    const p = joinedEarlyBird([daily], '2026-03-04T02:00:00', 'P2D')
    expect(p).toMatchObject({ from: '2026-03-04T02:00:00', to: '2026-03-06T02:00:00', timeZone: 'Asia/Tokyo', dayStartHour: 4 })
    expect(required(p)).toEqual([['2026-03-03', '2026-03-04', '2026-03-05']])
    expect(firstDayOf(p)).toBe('2026-03-03')
    // Each can be done in time: the last at 01:59:59 on 6 March, still its day 5 March.
    let q = recordCompletion(p, completion('id-1', '2026-03-03', '2026-03-04T03:00:00')).participation
    q = recordCompletion(q, completion('id-1', '2026-03-04', '2026-03-05T01:00:00')).participation
    expect(recordCompletion(q, completion('id-1', '2026-03-05', '2026-03-06T02:00:00')).participation).toBe(q)
    expect(recordCompletion(q, completion('id-1', '2026-03-05', '2026-03-06T01:59:59')).completed).toBe(true)
  })

  test('joined after the day start: the day of the join is the calendar day', () => {
    // [4 March 05:00, 5 March 05:00): 4 March, and 5 March from 04:00.
    const p = joinedEarlyBird([daily], '2026-03-04T05:00:00', 'P1D')
    expect(required(p)).toEqual([['2026-03-04', '2026-03-05']])
    expect(firstDayOf(p)).toBe('2026-03-04')
    // Ending at 04:00 exactly: the day starting then is not needed.
    expect(required(joinedEarlyBird([daily], '2026-03-04T04:00:00', 'P1D'))).toEqual([['2026-03-04']])
  })

  test('an EVERY_N_DAYS habit is anchored at the day of the join, the day before when joined before the day start', () => {
    // Joined 4 March 02:00 for P2D, still 3 March: one 3-day window, 3 March 04:00 to 6 March 04:00, holds it all.
    const p = joinedEarlyBird([everyThirdDay], '2026-03-04T02:00:00', 'P2D')
    expect(p.habits[0]!.habit.recurrence).toEqual({ type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '2026-03-03' })
    expect(required(p)).toEqual([['2026-03-03']])
    // For P3D, until 7 March 02:00: the window from 6 March (04:00) too.
    expect(required(joinedEarlyBird([everyThirdDay], '2026-03-04T02:00:00', 'P3D'))).toEqual([['2026-03-03', '2026-03-06']])
  })

  test('a TIMES_PER_WEEK week begins on Monday at the day start', () => {
    // Monday 9 March 02:00 is still Sunday: the week from 2 March. Until 03:00, the next week has not begun.
    expect(required(joinedEarlyBird([twiceAWeek], '2026-03-09T02:00:00', 'PT1H'))).toEqual([['2026-03-02']])
    // Until 05:00 it has.
    expect(required(joinedEarlyBird([twiceAWeek], '2026-03-09T02:00:00', 'PT3H'))).toEqual([['2026-03-02', '2026-03-09']])
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
    // From Wednesday 4 March 10:00 for P7D: 2 weeks + 3 three-day windows = 5: 100 experience, 50 money of 500 each
    expect(joined([twiceAWeek, everyThirdDay], '2026-03-04T10:00:00', 'P7D', { experience: 500, money: 500 }).payout).toEqual({ experience: 100, money: 50 })
  })
})

describe('counting completions', () => {
  const start = () => joined([daily, weekly], '2026-03-02T10:00:00', 'P1D')
  const done = (p: Participation) => p.habits.map((h) => h.done)

  test('one per window; the last required one completes the participation', () => {
    let p = start()
    let r = recordCompletion(p, completion('id-1', '2026-03-02', '2026-03-02T11:00:00'))
    expect(r.completed).toBe(false)
    p = r.participation
    // the same window again changes nothing
    expect(recordCompletion(p, completion('id-1', '2026-03-02', '2026-03-02T12:00:00')).participation).toBe(p)
    p = recordCompletion(p, completion('id-2', '2026-03-02', '2026-03-02T12:00:00')).participation
    expect(progressOf(p)).toEqual({ required: 3, done: 2, percent: 66 })
    r = recordCompletion(p, completion('id-1', '2026-03-03', '2026-03-03T09:59:59'))
    expect(r.completed).toBe(true)
    expect(r.participation.status).toBe('COMPLETED')
    expect(done(r.participation)).toEqual([['2026-03-02', '2026-03-03'], ['2026-03-02']])
    expect(progressOf(r.participation)).toEqual({ required: 3, done: 3, percent: 100 })
  })

  test('not counted: a window outside the participant window, another habit, a completion recorded after the window closed', () => {
    const p = start()
    expect(recordCompletion(p, completion('id-1', '2026-03-04', '2026-03-03T09:00:00')).participation).toBe(p)
    expect(recordCompletion(p, completion('other', '2026-03-02', '2026-03-02T11:00:00')).participation).toBe(p)
    expect(recordCompletion(p, completion('id-1', '2026-03-03', '2026-03-03T10:00:00')).participation).toBe(p)
  })

  test('a TIMES_PER_WEEK week counts once done: not for a completion that left it short, nor for one recorded after the end', () => {
    // Joined Wednesday 4 March 10:00 for P7D: the weeks from 2 and 9 March; id-1 is the copy.
    let p = joined([twiceAWeek], '2026-03-04T10:00:00', 'P7D')
    const short = recordCompletion(p, completion('id-1', '2026-03-02', '2026-03-04T11:00:00', false))
    expect(short.participation).toBe(p)
    p = recordCompletion(p, completion('id-1', '2026-03-02', '2026-03-05T09:00:00')).participation
    expect(progressOf(p)).toEqual({ required: 2, done: 1, percent: 50 })
    // The second week's second completion at the quest's last instant counts and completes the quest...
    const last = recordCompletion(p, completion('id-1', '2026-03-09', '2026-03-11T09:59:59'))
    expect(last.completed).toBe(true)
    expect(last.participation.habits[0]!.done).toEqual(['2026-03-02', '2026-03-09'])
    // ...one made at the end itself does not, though its week runs on to 16 March.
    expect(recordCompletion(p, completion('id-1', '2026-03-09', '2026-03-11T10:00:00')).participation).toBe(p)
  })

  test('an EVERY_N_DAYS window running past the end counts when completed before it', () => {
    // Joined 4 March 10:00 for P7D: windows from 4, 7 and 10 March; id-1 is the copy.
    let p = joined([everyThirdDay], '2026-03-04T10:00:00', 'P7D')
    p = recordCompletion(p, completion('id-1', '2026-03-04', '2026-03-04T12:00:00')).participation
    p = recordCompletion(p, completion('id-1', '2026-03-07', '2026-03-08T12:00:00')).participation
    // A window of the copy outside the participation (13 March) does not count.
    expect(recordCompletion(p, completion('id-1', '2026-03-13', '2026-03-11T09:00:00')).participation).toBe(p)
    const r = recordCompletion(p, completion('id-1', '2026-03-10', '2026-03-10T18:00:00'))
    expect(r.completed).toBe(true)
    expect(progressOf(r.participation)).toEqual({ required: 3, done: 3, percent: 100 })
  })

  test('not counted once the participation has ended', () => {
    const expired: Participation = { ...start(), status: 'EXPIRED' }
    expect(recordCompletion(expired, completion('id-1', '2026-03-02', '2026-03-02T11:00:00')).participation).toBe(expired)
  })
})
