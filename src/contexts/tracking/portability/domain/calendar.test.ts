import { describe, expect, test } from 'vitest'
import type { Recurrence } from '../../../../platform/time/index.js'
import { newHabit, type Habit } from '../../domain/habit.js'
import { BEGINNING, defaultHistory, type SettingsEntry } from '../../domain/settings.js'
import { habitCalendar, recurrenceRule, type CalendarHabit } from './calendar.js'

// 2026-03-02 is a Monday; Berlin moves its clocks forward on 29 March 2026.
const base = { id: '7d1c7a9e-0000-4000-8000-000000000001', avatarId: 'a', ownerId: 'o', title: 'Read', description: '', tags: [], ownTimeZone: null, associatedQuestId: null }
const make = (recurrence: Recurrence, today = '2026-03-02', extra: Partial<Habit> = {}) => ({ ...newHabit({ ...base, recurrence }, today, defaultHistory()), ...extra })
const berlin4: SettingsEntry[] = [{ from: BEGINNING, timeZone: 'Europe/Berlin', dayStartHour: 4, vacation: { from: '2026-04-06', to: '2026-04-08' } }]
const NOW = new Date('2026-03-02T10:00:00Z')

const unfold = (text: string) => text.replace(/\r\n /g, '')
const linesOf = (text: string) => unfold(text).split('\r\n')
const feed = (habits: CalendarHabit[], now = NOW) => habitCalendar(habits, now)
/** The dates of every EXDATE (or RDATE) property, in order: `EXDATE;TZID=UTC:20260308T000000,…`. */
function datesOf(lines: string[], property: 'EXDATE' | 'RDATE'): string[] {
  return lines.filter((l) => l.startsWith(`${property};`)).flatMap((l) => {
    const [params, values] = l.split(':') as [string, string]
    return values.split(',').map((v) => `${params}:${v}`)
  })
}

describe('the rule of each schedule', () => {
  test.each<[Recurrence, string]>([
    [{ type: 'DAILY' }, 'FREQ=DAILY'],
    [{ type: 'WEEKLY', dayOfWeek: 'THURSDAY' }, 'FREQ=WEEKLY;WKST=MO;BYDAY=TH'],
    [{ type: 'MONTHLY', dayOfMonth: 15 }, 'FREQ=MONTHLY;BYMONTHDAY=15'],
    // the 30th; February's last day comes as an RDATE (below)
    [{ type: 'MONTHLY', dayOfMonth: 30 }, 'FREQ=MONTHLY;BYMONTHDAY=30'],
    [{ type: 'MONTHLY', dayOfMonth: 31 }, 'FREQ=MONTHLY;BYMONTHDAY=-1'],
    [{ type: 'TIMES_PER_WEEK', timesPerWeek: 3 }, 'FREQ=WEEKLY;WKST=MO;BYDAY=MO'],
    [{ type: 'EVERY_N_DAYS', everyNDays: 10, anchor: '2026-03-02' }, 'FREQ=DAILY;INTERVAL=10'],
  ])('%j → %s', (r, rule) => {
    expect(recurrenceRule(r)).toBe(rule)
  })

  test('a DAILY habit with rest days: its other days, every week', () => {
    expect(recurrenceRule({ type: 'DAILY' }, ['SATURDAY', 'SUNDAY'])).toBe('FREQ=WEEKLY;WKST=MO;BYDAY=MO,TU,WE,TH,FR')
  })
})

describe('a habit as a recurring event', () => {
  test('DAILY in Berlin from 04:00: starts at its first window; rest days are left out by the rule, a vacation by exceptions', () => {
    const habit = make({ type: 'DAILY' }, '2026-03-02', { restDays: ['SUNDAY'] })
    const lines = linesOf(feed([{ habit, history: berlin4 }]))
    expect(lines).toContain(`UID:${base.id}@questline`)
    expect(lines).toContain('DTSTART;TZID=Europe/Berlin:20260302T040000')
    expect(lines).toContain('DURATION:P1D')
    // Sundays are no occurrence of the rule, however far ahead a calendar looks.
    expect(lines).toContain('RRULE:FREQ=WEEKLY;WKST=MO;BYDAY=MO,TU,WE,TH,FR,SA')
    // The vacation (6 to 8 April) holds its Monday to Wednesday; its Sunday before is a rest day anyway.
    expect(datesOf(lines, 'EXDATE')).toEqual([
      'EXDATE;TZID=Europe/Berlin:20260406T040000', 'EXDATE;TZID=Europe/Berlin:20260407T040000', 'EXDATE;TZID=Europe/Berlin:20260408T040000',
    ])
    expect(datesOf(lines, 'RDATE')).toEqual([])
    expect(lines).toContain('BEGIN:VTIMEZONE')
    expect(lines).toContain('TZID:Europe/Berlin')
  })

  test('rest days changed: the windows before the change are exceptions to the rule of the present ones', () => {
    // Made on Sunday 1 February with Saturdays at rest; from 20 February, Sundays instead.
    const habit = make({ type: 'DAILY' }, '2026-02-01', { restDays: ['SUNDAY'], previousRestDays: ['SATURDAY'], restDaysFrom: '2026-02-20' })
    const lines = linesOf(feed([{ habit, history: defaultHistory() }]))
    expect(lines).toContain('RRULE:FREQ=WEEKLY;WKST=MO;BYDAY=MO,TU,WE,TH,FR,SA')
    // The rule makes no Sunday: DTSTART is the Monday after the first window, which comes as an RDATE with the other Sundays that were due.
    expect(lines).toContain('DTSTART;TZID=UTC:20260202T000000')
    expect(datesOf(lines, 'RDATE')).toEqual(['RDATE;TZID=UTC:20260201T000000', 'RDATE;TZID=UTC:20260208T000000', 'RDATE;TZID=UTC:20260215T000000'])
    expect(datesOf(lines, 'EXDATE')).toEqual(['EXDATE;TZID=UTC:20260207T000000', 'EXDATE;TZID=UTC:20260214T000000'])
  })

  test('at most 50 dates a property', () => {
    const history: SettingsEntry[] = [{ ...berlin4[0]!, vacation: { from: '2026-05-01', to: '2026-06-29' } }]
    const lines = linesOf(feed([{ habit: make({ type: 'DAILY' }), history }]))
    expect(lines.filter((l) => l.startsWith('EXDATE')).map((l) => l.split(',').length)).toEqual([50, 10])
  })

  test('an old habit lists exceptions only from a year before today; a vacation however far ahead is listed whole', () => {
    const habit = make({ type: 'DAILY' }, '2024-01-01')
    const history: SettingsEntry[] = [
      { from: BEGINNING, timeZone: 'UTC', dayStartHour: 0, vacation: { from: '2024-06-01', to: '2024-06-02' } },
      { from: '2024-07-01', timeZone: 'UTC', dayStartHour: 0, vacation: { from: '2025-06-01', to: '2025-06-02' } },
      { from: '2025-07-01', timeZone: 'UTC', dayStartHour: 0, vacation: { from: '2027-08-01', to: '2027-08-02' } },
    ]
    const lines = linesOf(feed([{ habit, history }]))
    expect(lines).toContain('DTSTART;TZID=UTC:20240101T000000')
    // a year back from Monday 2 March 2026 is 1 March 2025: the vacation of 2024 is before it; the one of August 2027 is 17 months ahead
    expect(datesOf(lines, 'EXDATE')).toEqual([
      'EXDATE;TZID=UTC:20250601T000000', 'EXDATE;TZID=UTC:20250602T000000', 'EXDATE;TZID=UTC:20270801T000000', 'EXDATE;TZID=UTC:20270802T000000',
    ])
  })

  test('MONTHLY on the 30th: February\'s last day as an RDATE; the event never starts on a day its rule does not make', () => {
    // Made on 10 March 2026: its first window, under way, began on 28 February, which BYMONTHDAY=30 does not make.
    const lines = linesOf(feed([{ habit: make({ type: 'MONTHLY', dayOfMonth: 30 }, '2026-03-10'), history: defaultHistory() }], new Date('2026-03-10T12:00:00Z')))
    expect(lines).toContain('DTSTART;TZID=UTC:20260330T000000')
    expect(lines).toContain('RRULE:FREQ=MONTHLY;BYMONTHDAY=30')
    expect(datesOf(lines, 'RDATE')).toEqual(['RDATE;TZID=UTC:20260228T000000', 'RDATE;TZID=UTC:20270228T000000'])
  })

  test('TIMES_PER_WEEK: a weekly event on the ISO week\'s Monday, the count in the summary', () => {
    const habit = make({ type: 'TIMES_PER_WEEK', timesPerWeek: 3 }, '2026-03-04', { title: 'Gym' })
    const lines = linesOf(feed([{ habit, history: defaultHistory() }]))
    expect(lines).toContain('DTSTART;TZID=UTC:20260302T000000')
    expect(lines).toContain('RRULE:FREQ=WEEKLY;WKST=MO;BYDAY=MO')
    expect(lines).toContain('SUMMARY:Gym (3× this week)')
  })

  test('after a change of day start the event starts at the first window under the new one; a vacation alone moves nothing', () => {
    const habit = make({ type: 'DAILY' })
    const changed: SettingsEntry[] = [{ from: BEGINNING, timeZone: 'UTC', dayStartHour: 0, vacation: null }, { ...berlin4[0]!, from: '2026-03-10' }]
    expect(linesOf(feed([{ habit, history: changed }], new Date('2026-03-12T12:00:00Z')))).toContain('DTSTART;TZID=Europe/Berlin:20260310T040000')
    const onlyVacation: SettingsEntry[] = [{ ...berlin4[0]!, vacation: null }, { ...berlin4[0]!, from: '2026-03-10' }]
    expect(linesOf(feed([{ habit, history: onlyVacation }], new Date('2026-03-12T12:00:00Z')))).toContain('DTSTART;TZID=Europe/Berlin:20260302T040000')
  })

  test('on the day of a change of zone and day start, the window under way stays, at its own start in its own zone', () => {
    // Changed on Monday 2 March (UTC, from midnight) to Berlin from 04:00: the new settings govern from tomorrow.
    const changed: SettingsEntry[] = [{ from: BEGINNING, timeZone: 'UTC', dayStartHour: 0, vacation: null }, { from: '2026-03-03', timeZone: 'Europe/Berlin', dayStartHour: 4, vacation: null }]
    const daily = linesOf(feed([{ habit: make({ type: 'DAILY' }, '2026-02-23'), history: changed }], new Date('2026-03-02T10:00:00Z')))
    expect(daily).toContain('DTSTART;TZID=Europe/Berlin:20260303T040000')
    expect(datesOf(daily, 'RDATE')).toEqual(['RDATE;TZID=UTC:20260302T000000'])
    expect(daily.filter((l) => l.startsWith('TZID:'))).toEqual(['TZID:Europe/Berlin', 'TZID:UTC'])
    // The day after, that window has ended: the feed starts with the new settings.
    const next = linesOf(feed([{ habit: make({ type: 'DAILY' }, '2026-02-23'), history: changed }], new Date('2026-03-03T10:00:00Z')))
    expect(datesOf(next, 'RDATE')).toEqual([])
    // A week under way keeps its Monday until it ends, whichever day of it the settings changed.
    const weekly = { ...make({ type: 'WEEKLY', dayOfWeek: 'MONDAY' }, '2026-02-23') }
    for (const day of ['2026-03-02', '2026-03-05', '2026-03-08']) {
      const lines = linesOf(feed([{ habit: weekly, history: changed }], new Date(`${day}T10:00:00Z`)))
      expect(lines, day).toContain('DTSTART;TZID=Europe/Berlin:20260309T040000')
      expect(datesOf(lines, 'RDATE'), day).toEqual(['RDATE;TZID=UTC:20260302T000000'])
    }
  })
})

describe('the text', () => {
  test('TEXT values escaped: commas, semicolons, backslashes, line breaks; tags as categories', () => {
    const habit = make({ type: 'DAILY' }, '2026-03-02', { title: 'Stretch, breathe; repeat \\ rest', description: 'Line one\nLine two', tags: ['health', 'a,b'] })
    const lines = linesOf(feed([{ habit, history: defaultHistory() }]))
    expect(lines).toContain('SUMMARY:Stretch\\, breathe\\; repeat \\\\ rest')
    expect(lines).toContain('DESCRIPTION:Line one\\nLine two\\n\\nEvery day.')
    expect(lines).toContain('CATEGORIES:health,a\\,b')
  })

  test('CRLF line ends only, no line over 75 octets, folded lines unfold to the whole value', () => {
    const title = 'Ä'.repeat(100) + '😀'.repeat(10)
    const text = feed([{ habit: make({ type: 'WEEKLY', dayOfWeek: 'FRIDAY' }, '2026-03-02', { title }), history: berlin4 }])
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true)
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
    const physical = text.split('\r\n')
    expect(Math.max(...physical.map((l) => Buffer.byteLength(l, 'utf8')))).toBeLessThanOrEqual(75)
    expect(physical.filter((l) => l.startsWith(' ')).length).toBeGreaterThan(2)
    expect(linesOf(text)).toContain(`SUMMARY:${title}`)
  })

  test('stable UIDs; one VTIMEZONE per zone in use, a habit\'s own zone included', () => {
    const a = make({ type: 'DAILY' })
    const b = { ...make({ type: 'DAILY' }), id: '7d1c7a9e-0000-4000-8000-000000000002' }
    const c = { ...make({ type: 'DAILY' }), id: '7d1c7a9e-0000-4000-8000-000000000003', ownTimeZone: 'America/New_York' }
    const text = feed([a, b, c].map((habit) => ({ habit, history: berlin4 })))
    const later = feed([a, b, c].map((habit) => ({ habit, history: berlin4 })), new Date('2026-06-01T00:00:00Z'))
    const uids = (t: string) => linesOf(t).filter((l) => l.startsWith('UID:'))
    expect(uids(text)).toEqual([`UID:${a.id}@questline`, `UID:${b.id}@questline`, `UID:${c.id}@questline`])
    expect(uids(later)).toEqual(uids(text))
    expect(linesOf(text).filter((l) => l.startsWith('TZID:'))).toEqual(['TZID:America/New_York', 'TZID:Europe/Berlin'])
    expect(linesOf(text)).toContain('DTSTART;TZID=America/New_York:20260302T040000')
  })
})
