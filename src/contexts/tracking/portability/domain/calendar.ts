/**
 * A player's habits as an iCalendar feed (DESIGN §9.4): one recurring VEVENT per habit.
 *
 * - Each event is an **occurrence**: it starts at the start of the day its window opens (the
 *   avatar's day start hour, in the habit's zone: `DTSTART;TZID=<IANA zone>`) and lasts that one
 *   player day (`DURATION:P1D`, a nominal day, so 23 or 25 hours across a clock change, as the
 *   player's day). Timed rather than all-day, because a day that starts at 04:00 in Berlin is
 *   something a date without a zone cannot say. The window itself runs on to the next
 *   occurrence, as the description says; a MONTHLY window's length varies, which one duration
 *   could not show anyway.
 * - `RRULE` from the schedule; TIMES_PER_WEEK has no fixed days, so it is a weekly event on the
 *   ISO week's Monday with the count in the summary. A MONTHLY habit on the 29th or 30th has its
 *   February occurrences as `RDATE`s within the span below.
 * - Windows that are not due (a vacation holding them whole, a DAILY habit's rest day, a day the
 *   zone skipped) are `EXDATE`s, from CALENDAR_EXCEPTIONS_SPAN_DAYS before today to as far after.
 * - The feed follows the day settings now: when the avatar's zone or day start hour changed, the
 *   event starts at the first window under the present ones (earlier windows began at other
 *   hours, which one rule cannot hold).
 * - A VTIMEZONE for each zone used (RFC 5545 asks for one per TZID): see platform/ical.ts.
 *
 * Pure: the habits and their avatars' settings in, the text out.
 */
import { calendarText, escapeText, localDateTimeValue, utcDateTimeValue, vtimezone } from '../../../../platform/ical.js'
import { addDays, DAY_MS, nextWindow, windowContaining, type LocalDate, type Recurrence, type Weekday, type Window } from '../../../../platform/time/index.js'
import { isDue, type Habit } from '../../domain/habit.js'
import { currentSettings, frameOf, todayOf, type SettingsEntry } from '../../domain/settings.js'
import { CALENDAR_EXCEPTIONS_SPAN_DAYS, CALENDAR_REFRESH_MINUTES } from './rules.js'

/** A habit with its avatar's settings history. */
export interface CalendarHabit {
  habit: Habit
  history: readonly SettingsEntry[]
}

export const CALENDAR_NAME = 'Questline habits'
const PRODUCT_ID = '-//Questline//Habit calendar//EN'

const BYDAY: Record<Weekday, string> = { MONDAY: 'MO', TUESDAY: 'TU', WEDNESDAY: 'WE', THURSDAY: 'TH', FRIDAY: 'FR', SATURDAY: 'SA', SUNDAY: 'SU' }
const dayName = (d: Weekday) => d.charAt(0) + d.slice(1).toLowerCase()

/**
 * The RRULE of a recurrence, its first occurrence being DTSTART. A MONTHLY day past 28 means the
 * month's last day when the month is shorter: 31 is every month's last day (`BYMONTHDAY=-1`); a
 * rule for 29 or 30 skips the months without that day (RFC 5545 §3.3.10), whose occurrences are
 * added as RDATEs (`monthEndDates`). (`BYMONTHDAY=30,-1;BYSETPOS=1` would say it in one rule, but
 * calendars, ical.js among them, do not all apply BYSETPOS to month days.)
 */
export function recurrenceRule(r: Recurrence): string {
  switch (r.type) {
    case 'DAILY': return 'FREQ=DAILY'
    case 'WEEKLY': return `FREQ=WEEKLY;WKST=MO;BYDAY=${BYDAY[r.dayOfWeek]}`
    case 'MONTHLY': return `FREQ=MONTHLY;BYMONTHDAY=${r.dayOfMonth === 31 ? -1 : r.dayOfMonth}`
    case 'TIMES_PER_WEEK': return 'FREQ=WEEKLY;WKST=MO;BYDAY=MO'
    case 'EVERY_N_DAYS': return `FREQ=DAILY;INTERVAL=${r.everyNDays}`
  }
}

/** What the schedule asks, for the event's description. */
function scheduleText(r: Recurrence, restDays: readonly Weekday[]): string {
  switch (r.type) {
    case 'DAILY': return restDays.length === 0 ? 'Every day.' : `Every day but ${restDays.map(dayName).join(', ')} (rest days).`
    case 'WEEKLY': return `Every ${dayName(r.dayOfWeek)}; done any day until the next.`
    case 'MONTHLY': return `On day ${r.dayOfMonth} of every month${r.dayOfMonth > 28 ? ' (the last day in shorter months)' : ''}; done any day until the next.`
    case 'TIMES_PER_WEEK': return `${r.timesPerWeek} times in each week from Monday, at most once a day.`
    case 'EVERY_N_DAYS': return `Every ${r.everyNDays} days; done any day until the next.`
  }
}

const summaryOf = (h: Habit) => (h.recurrence.type === 'TIMES_PER_WEEK' ? `${h.title} (${h.recurrence.timesPerWeek}× this week)` : h.title)

/** Whether two entries put a habit's days at the same hours. */
const sameFrame = (a: SettingsEntry, b: SettingsEntry, own: string | null) =>
  frameOf(a, own).timeZone === frameOf(b, own).timeZone && a.dayStartHour === b.dayStartHour

/** The day the present zone and day start hour have governed the habit's windows from (the first entry's: always). */
function frameSince(history: readonly SettingsEntry[], own: string | null): LocalDate {
  const now = currentSettings(history)
  let i = history.length - 1
  while (i > 0 && sameFrame(history[i - 1]!, now, own)) i--
  return history[i]!.from
}

/** Whether a window starts where the RRULE has an occurrence (not on a shorter month's last day standing in for the 29th or 30th). */
const onRule = (r: Recurrence, w: Window) => r.type !== 'MONTHLY' || r.dayOfMonth === 31 || Number(w.start.slice(8, 10)) === r.dayOfMonth

/**
 * The window the event starts at: the habit's first under the present frame (its first, or the
 * first to start after the frame changed), moved on to one its rule makes, as DTSTART must be
 * (RFC 5545 §3.8.5.3: a recurrence set whose DTSTART the rule does not make is undefined).
 */
function firstShownWindow({ habit: h, history }: CalendarHabit): Window {
  const since = frameSince(history, h.ownTimeZone)
  let w = windowContaining(h.recurrence, h.firstWindowStart > since ? h.firstWindowStart : since)
  if (w.start < since) w = nextWindow(h.recurrence, w)
  while (!onRule(h.recurrence, w)) w = nextWindow(h.recurrence, w)
  return w
}

/** The habit's windows from `first` on, within the span around today. */
function* windowsInSpan(r: Recurrence, first: Window, today: LocalDate): Generator<Window> {
  const from = addDays(today, -CALENDAR_EXCEPTIONS_SPAN_DAYS)
  const until = addDays(today, CALENDAR_EXCEPTIONS_SPAN_DAYS)
  for (let w = first.start >= from ? first : windowContaining(r, from); w.start < until; w = nextWindow(r, w)) yield w
}

/** Starts of the windows that are not due, within the span. */
function notDueStarts({ habit: h, history }: CalendarHabit, first: Window, today: LocalDate): LocalDate[] {
  const out: LocalDate[] = []
  for (const w of windowsInSpan(h.recurrence, first, today)) if (!isDue(h, history, w)) out.push(w.start)
  return out
}

/** A MONTHLY habit on the 29th or 30th: its occurrences on the last day of shorter months (February), which its rule skips, within the span. */
function monthEndDates(r: Recurrence, first: Window, today: LocalDate): LocalDate[] {
  const out: LocalDate[] = []
  if (r.type === 'MONTHLY') for (const w of windowsInSpan(r, first, today)) if (!onRule(r, w)) out.push(w.start)
  return out
}

/** Dates one RDATE or EXDATE lists (a list is half the size of a property per date; folding keeps its lines short). */
const DATES_PER_PROPERTY = 50

function dateList(property: string, values: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < values.length; i += DATES_PER_PROPERTY) out.push(`${property}:${values.slice(i, i + DATES_PER_PROPERTY).join(',')}`)
  return out
}

/** The VEVENT of one habit, and the zone its times are in. */
function habitEvent(entry: CalendarHabit, stamp: string, now: Date): { zone: string; lines: string[] } {
  const { habit: h, history } = entry
  const frame = frameOf(currentSettings(history), h.ownTimeZone)
  const hour = String(frame.dayStartHour).padStart(2, '0')
  const at = (d: LocalDate) => localDateTimeValue(`${d}T${hour}:00:00`)
  const tzid = `TZID=${frame.timeZone}`
  const first = firstShownWindow(entry)
  const today = todayOf(history, h.ownTimeZone, now)
  const description = [h.description.trim(), scheduleText(h.recurrence, h.restDays)].filter((t) => t !== '').join('\n\n')
  return {
    zone: frame.timeZone,
    lines: [
      'BEGIN:VEVENT',
      `UID:${h.id}@questline`,
      `DTSTAMP:${stamp}`,
      `DTSTART;${tzid}:${at(first.start)}`,
      'DURATION:P1D',
      `RRULE:${recurrenceRule(h.recurrence)}`,
      ...dateList(`RDATE;${tzid}`, monthEndDates(h.recurrence, first, today).map(at)),
      ...dateList(`EXDATE;${tzid}`, notDueStarts(entry, first, today).map(at)),
      `SUMMARY:${escapeText(summaryOf(h))}`,
      `DESCRIPTION:${escapeText(description)}`,
      ...(h.tags.length > 0 ? [`CATEGORIES:${h.tags.map(escapeText).join(',')}`] : []),
      // A habit is not an appointment: it never makes its player look busy.
      'TRANSP:TRANSPARENT',
      'END:VEVENT',
    ],
  }
}

/** The whole feed: every habit given, in the order given, with a VTIMEZONE for each zone they use. */
export function habitCalendar(habits: readonly CalendarHabit[], now: Date): string {
  const stamp = utcDateTimeValue(now)
  const events = habits.map((h) => habitEvent(h, stamp, now))
  // Whole UTC days, so the zones' VTIMEZONEs are made once a day (platform/ical remembers them).
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS
  const span = (CALENDAR_EXCEPTIONS_SPAN_DAYS + 1) * DAY_MS
  const zones = [...new Set(events.map((e) => e.zone))].sort()
  return calendarText([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:${PRODUCT_ID}`,
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(CALENDAR_NAME)}`,
    `REFRESH-INTERVAL;VALUE=DURATION:PT${CALENDAR_REFRESH_MINUTES}M`,
    `X-PUBLISHED-TTL:PT${CALENDAR_REFRESH_MINUTES}M`,
    ...zones.flatMap((z) => vtimezone(z, new Date(today - span), new Date(today + span))),
    ...events.flatMap((e) => e.lines),
    'END:VCALENDAR',
  ])
}
