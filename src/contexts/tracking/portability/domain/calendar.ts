/**
 * A player's habits as an iCalendar feed (DESIGN §9.4): one recurring VEVENT per habit not archived.
 *
 * - Each event is an **occurrence**: it starts at the start of the day its window opens (the
 *   avatar's day start hour, in the habit's zone: `DTSTART;TZID=<IANA zone>`) and lasts that one
 *   player day (`DURATION:P1D`, a nominal day, so 23 or 25 hours across a clock change, as the
 *   player's day). Timed rather than all-day, because a day that starts at 04:00 in Berlin is
 *   something a date without a zone cannot say. The window itself runs on to the next
 *   occurrence, as the description says; a MONTHLY window's length varies, which one duration
 *   could not show anyway.
 * - `RRULE` from the schedule, which a calendar repeats without end: a DAILY habit's rest days are
 *   left out by the rule itself (`FREQ=WEEKLY;BYDAY=` its other days). TIMES_PER_WEEK has no fixed
 *   days, so it is a weekly event on the ISO week's Monday with the count in the summary.
 * - Where the habit's due windows and the rule's occurrences differ, the feed says so by date: an
 *   occurrence whose window is not due (a vacation holding it whole, a day the zone skipped, a rest
 *   day the rest days before the last change had) is an `EXDATE`, a due window the rule does not
 *   make (a MONTHLY habit on the 29th or 30th in February, a day that was no rest day before the
 *   last change) an `RDATE`. These lists cover the windows from CALENDAR_EXCEPTIONS_SPAN_DAYS before
 *   today to as far after, and the present vacation whole wherever it lies; the feed asks to be
 *   fetched again every CALENDAR_REFRESH_MINUTES, so the span moves on with the days.
 * - The feed follows the day settings now: when the avatar's zone or day start hour changed, the
 *   rule starts at the first window under the present ones (earlier windows began at other hours,
 *   which one rule cannot hold). A window begun under the settings before that has not ended (the
 *   one under way on the day of a change, whose new settings govern from tomorrow) is an `RDATE` at
 *   its own start, in its own zone.
 * - A VTIMEZONE for each zone used (RFC 5545 asks for one per TZID): see platform/ical.ts.
 *
 * Pure: the habits and their avatars' settings in, the text out.
 */
import { calendarText, escapeText, localDateTimeValue, utcDateTimeValue, vtimezone } from '../../../../platform/ical.js'
import {
  addDays, DAY_MS, nextWindow, WEEKDAYS, weekdayOf, windowContaining, type DayFrame, type LocalDate, type Recurrence, type Weekday, type Window,
} from '../../../../platform/time/index.js'
import { isDue, type Habit } from '../../domain/habit.js'
import { currentSettings, frameOf, hasEnded, settingsFor, todayOf, type SettingsEntry } from '../../domain/settings.js'
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
 * The RRULE of a recurrence, its first occurrence being DTSTART; a DAILY habit's `restDays` are
 * left out by it. A MONTHLY day past 28 means the month's last day when the month is shorter: 31
 * is every month's last day (`BYMONTHDAY=-1`); a rule for 29 or 30 skips the months without that
 * day (RFC 5545 §3.3.10), whose occurrences are added as RDATEs. (`BYMONTHDAY=30,-1;BYSETPOS=1`
 * would say it in one rule, but calendars, ical.js among them, do not all apply BYSETPOS to month
 * days.)
 */
export function recurrenceRule(r: Recurrence, restDays: readonly Weekday[] = []): string {
  switch (r.type) {
    case 'DAILY': return restDays.length === 0 ? 'FREQ=DAILY' : `FREQ=WEEKLY;WKST=MO;BYDAY=${WEEKDAYS.filter((d) => !restDays.includes(d)).map((d) => BYDAY[d]).join(',')}`
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

/**
 * Whether the habit's RRULE has an occurrence where window `w` starts: not on a shorter month's
 * last day standing in for the 29th or 30th, nor on a DAILY habit's rest day (its present ones).
 */
const ruleMakes = (h: Habit, w: Window): boolean =>
  h.recurrence.type === 'MONTHLY' ? h.recurrence.dayOfMonth === 31 || Number(w.start.slice(8, 10)) === h.recurrence.dayOfMonth
    : h.recurrence.type !== 'DAILY' || !h.restDays.includes(weekdayOf(w.start))

/** The habit's first window under the present frame: its first, or the first to start after the frame changed. */
function firstUnderFrame(h: Habit, since: LocalDate): Window {
  const w = windowContaining(h.recurrence, h.firstWindowStart > since ? h.firstWindowStart : since)
  return w.start < since ? nextWindow(h.recurrence, w) : w
}

/**
 * The window the event starts at (DTSTART): the first from `from` on that its rule makes, as
 * DTSTART must be (RFC 5545 §3.8.5.3: a recurrence set whose DTSTART the rule does not make is
 * undefined). Rest days are never all seven, so this is within a week or, for February, a month.
 */
function ruleStart(h: Habit, from: Window): Window {
  let w = from
  while (!ruleMakes(h, w)) w = nextWindow(h.recurrence, w)
  return w
}

/**
 * How far apart two frames' dates of one instant may be: zones lie from 12 hours behind UTC to 14
 * ahead, and a day may start as late as 23:00, so by less than 49 hours, three dates at most.
 */
const FRAMES_DAYS_APART_MAX = 3

/** A window the event shows, in the frame it began in. */
interface ShownWindow {
  window: Window
  frame: DayFrame
}

/**
 * The windows the event shows: those begun under earlier settings that have not ended (the one
 * under way when the settings changed), then from `first` (under the present settings) those
 * within the span around today, and to the end of the present vacation.
 */
function* shownWindows({ habit: h, history }: CalendarHabit, present: DayFrame, first: Window, now: Date): Generator<ShownWindow> {
  const r = h.recurrence
  const today = todayOf(history, h.ownTimeZone, now)
  const recent = addDays(today, -FRAMES_DAYS_APART_MAX)
  for (let w = windowContaining(r, h.firstWindowStart > recent ? h.firstWindowStart : recent); w.start < first.start; w = nextWindow(r, w)) {
    if (!hasEnded(history, h.ownTimeZone, w, now)) yield { window: w, frame: frameOf(settingsFor(history, w.start), h.ownTimeZone) }
  }
  const from = addDays(today, -CALENDAR_EXCEPTIONS_SPAN_DAYS)
  const vacation = currentSettings(history).vacation
  const spanEnd = addDays(today, CALENDAR_EXCEPTIONS_SPAN_DAYS)
  const until = vacation !== null && vacation.to >= spanEnd ? addDays(vacation.to, 1) : spanEnd
  for (let w = first.start >= from ? first : windowContaining(r, from); w.start < until; w = nextWindow(r, w)) yield { window: w, frame: present }
}

/**
 * Where the habit's due windows and its rule's occurrences from `start` on differ, among the shown
 * windows: the starts of occurrences not due (EXDATE), and the due windows the rule does not make,
 * each at the start of its day in its frame (RDATE).
 */
function differences(entry: CalendarHabit, present: DayFrame, first: Window, start: Window, now: Date) {
  const exdates: LocalDate[] = []
  const rdates: { zone: string; at: string }[] = []
  for (const { window: w, frame } of shownWindows(entry, present, first, now)) {
    const made = w.start >= start.start && ruleMakes(entry.habit, w)
    const due = isDue(entry.habit, entry.history, w)
    if (made && !due) exdates.push(w.start)
    else if (!made && due) rdates.push({ zone: frame.timeZone, at: `${w.start}T${hourOf(frame)}:00:00` })
  }
  return { exdates, rdates }
}

const hourOf = (f: DayFrame) => String(f.dayStartHour).padStart(2, '0')

/** Dates one RDATE or EXDATE lists (a list is half the size of a property per date; folding keeps its lines short). */
const DATES_PER_PROPERTY = 50

function dateList(property: string, values: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < values.length; i += DATES_PER_PROPERTY) out.push(`${property}:${values.slice(i, i + DATES_PER_PROPERTY).join(',')}`)
  return out
}

/** The RDATE properties of dates in several zones: one list per zone, in the order they first come. */
function rdateLines(rdates: readonly { zone: string; at: string }[]): string[] {
  const zones = [...new Set(rdates.map((d) => d.zone))]
  return zones.flatMap((z) => dateList(`RDATE;TZID=${z}`, rdates.filter((d) => d.zone === z).map((d) => localDateTimeValue(d.at))))
}

/** The VEVENT of one habit, and the zones its times are in. */
function habitEvent(entry: CalendarHabit, stamp: string, now: Date): { zones: string[]; lines: string[] } {
  const { habit: h, history } = entry
  const present = frameOf(currentSettings(history), h.ownTimeZone)
  const at = (d: LocalDate) => localDateTimeValue(`${d}T${hourOf(present)}:00:00`)
  const tzid = `TZID=${present.timeZone}`
  const first = firstUnderFrame(h, frameSince(history, h.ownTimeZone))
  const start = ruleStart(h, first)
  const { exdates, rdates } = differences(entry, present, first, start, now)
  const description = [h.description.trim(), scheduleText(h.recurrence, h.restDays)].filter((t) => t !== '').join('\n\n')
  return {
    zones: [present.timeZone, ...rdates.map((d) => d.zone)],
    lines: [
      'BEGIN:VEVENT',
      `UID:${h.id}@questline`,
      `DTSTAMP:${stamp}`,
      `DTSTART;${tzid}:${at(start.start)}`,
      'DURATION:P1D',
      `RRULE:${recurrenceRule(h.recurrence, h.restDays)}`,
      ...rdateLines(rdates),
      ...dateList(`EXDATE;${tzid}`, exdates.map(at)),
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
  const zones = [...new Set(events.flatMap((e) => e.zones))].sort()
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
