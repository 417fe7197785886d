/**
 * Instants and IANA time zones: the wall clock of an instant in a zone, the instant of a wall
 * clock in a zone, and where a local day begins. Instants are `Date`s (what the Clock gives).
 */
import { Temporal } from 'temporal-polyfill'
import { plainDate, plainDateTime, type LocalDate, type LocalDateTime } from './local.js'

/**
 * Temporal also takes offsets (`+02:00`) and whole ISO strings with a zone annotation
 * (`2026-03-02T00:00[Europe/Berlin]`) where a zone is asked for. Only zone names pass here:
 * letters, digits and `/ _ - +` (`Etc/GMT+5`), not beginning with a sign.
 */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9/_+-]*$/

const zoned = (instant: Date, timeZone: string) => Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timeZone)

/** The zone dates are read in when nothing else says (DESIGN §4: the avatar's, UTC unless set). */
export const DEFAULT_TIME_ZONE = 'UTC'

/**
 * Whether `tz` names an IANA time zone (case-insensitively, as Temporal reads zone names).
 * Offsets such as `+02:00` are refused, so the answer does not depend on the runtime.
 */
export function isValidTimeZone(tz: string): boolean {
  if (!ZONE_NAME.test(tz)) return false
  try {
    return zoned(new Date(0), tz).timeZoneId.toLowerCase() === tz.toLowerCase()
  } catch (e) {
    if (e instanceof RangeError) return false
    throw e
  }
}

/** An offset from UTC a zone keeps over a span of instants [from, until), in milliseconds. */
interface OffsetSpan {
  from: number
  until: number
  offsetMs: number
}

/** The span each zone was last asked about: the clock moves on, so the next question mostly falls inside it. */
const spans = new Map<string, OffsetSpan>()
/** Zone names are read case-insensitively, so their spellings are many: the memory is dropped past this many. */
const SPANS_MAX = 1000

/** The offset `timeZone` keeps at `ms` and the span of instants between its transitions around it. */
function offsetSpanAt(ms: number, timeZone: string): OffsetSpan {
  const z = zoned(new Date(ms), timeZone)
  const offsetMs = z.offsetNanoseconds / 1_000_000
  const previous = z.getTimeZoneTransition('previous')
  const next = z.getTimeZoneTransition('next')
  // 'previous' is strictly before `ms`: when `ms` is a transition itself, the span starts at `ms`.
  const from = previous === null ? -Infinity : previous.offsetNanoseconds === z.offsetNanoseconds ? previous.epochMilliseconds : ms
  return { from, until: next === null ? Infinity : next.epochMilliseconds, offsetMs }
}

/**
 * The wall-clock date-time of an instant in an IANA time zone, as `YYYY-MM-DDTHH:mm:ss`
 * (milliseconds dropped). Temporal says which offset from UTC the zone keeps at that instant,
 * and until when; the wall clock is the instant moved by that offset, written as UTC. The span
 * is remembered per zone, because the polyfill takes tens of microseconds to find an offset and
 * this runs on every attend.
 */
export function localDateTimeIn(instant: Date, timeZone: string): LocalDateTime {
  const ms = instant.getTime()
  let span = spans.get(timeZone)
  if (!span || ms < span.from || ms >= span.until) {
    span = offsetSpanAt(ms, timeZone)
    if (spans.size >= SPANS_MAX) spans.clear()
    spans.set(timeZone, span)
  }
  return new Date(ms + span.offsetMs).toISOString().slice(0, 19)
}

/**
 * The instant a wall clock in `timeZone` shows `t`. Where a DST change makes that reading
 * ambiguous it is resolved on purpose, as Temporal's `compatible` disambiguation (and RFC 5545)
 * do:
 * - a time the clock skips (02:30 on the night Berlin springs forward from 02:00 to 03:00) is
 *   moved forward by the gap: the instant the clock reads 03:30;
 * - a time the clock shows twice (02:30 on the night Berlin falls back from 03:00 to 02:00) is
 *   the earlier of the two, still on summer time.
 * So every local time names exactly one instant, and nothing scheduled in a gap is lost.
 */
export function instantIn(t: LocalDateTime, timeZone: string): Date {
  return new Date(plainDateTime(t).toZonedDateTime(timeZone, { disambiguation: 'compatible' }).epochMilliseconds)
}

/**
 * The first instant of a local day in `timeZone`: its midnight, or, in a zone whose clocks
 * skip midnight that day, the first time the clock shows (01:00 when they jump from 00:00).
 */
export function startOfDayIn(d: LocalDate, timeZone: string): Date {
  return new Date(plainDate(d).toZonedDateTime({ timeZone }).epochMilliseconds)
}
