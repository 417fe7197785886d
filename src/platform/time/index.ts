/**
 * Time, as the platform reads and counts it: the API's local dates and date-times, IANA zones,
 * ISO 8601 durations, a player's days and the calendar windows of recurrences. Pure and built on
 * Temporal (temporal-polyfill): no game rule, nothing Node-only, so the web app uses this same module.
 */
export {
  DAY_MS, LOCAL_DATE_TIME_PATTERN, WEEKDAYS, addDays, addHours, addMonths, dateOf, daysBetween, daysInMonth, formatLocalDateTime, parseLocalDate, parseLocalDateTime, plainDate,
  plainDateTime, startOfDay, weekdayOf, type LocalDate, type LocalDateTime, type Weekday,
} from './local.js'
export { DEFAULT_TIME_ZONE, instantIn, isValidTimeZone, localDateTimeIn, startOfDayIn } from './zone.js'
export { addDuration, readDuration, type Duration, type DurationLimits, type DurationReading } from './duration.js'
export { DEFAULT_DAY_FRAME, dayOf, dayOfLocal, dayStart, localNow, windowInstants, type DayFrame } from './day.js'
export {
  RECURRENCE_TYPES, anchoredAt, nextWindow, previousWindow, recurrenceFields, windowContaining, windowsEndedBetween, windowsOverlapping,
  type Recurrence, type RecurrenceType, type Window,
} from './schedule.js'
