/**
 * A player's day (DESIGN §9.3): it runs from a local hour (the day start) in a time zone to the
 * same hour the next day, so with a day start of 4 a completion at 01:30 counts for the day
 * before. A day is named by the local date it starts on.
 *
 * The days are defined by their first instants, `dayStart(d)`: day d is [dayStart(d),
 * dayStart(d + 1)). Those instants only grow, so the days tile time, and `dayOf` finds the one
 * day holding an instant even where a clock change makes the wall clock run back across a day
 * start. A day start the clock skips (02:00 on a night of spring-forward) is moved forward by the
 * gap, as `instantIn` does; a day a zone skipped altogether (Samoa's 30 December 2011) is empty.
 */
import { addDays, type LocalDate, type LocalDateTime } from './local.js'
import type { Window } from './schedule.js'
import { DEFAULT_TIME_ZONE, instantIn, localDateTimeIn } from './zone.js'

export interface DayFrame {
  /** IANA zone. */
  timeZone: string
  /** 0–23: the local hour a day starts at. */
  dayStartHour: number
}

export const DEFAULT_DAY_FRAME: DayFrame = Object.freeze({ timeZone: DEFAULT_TIME_ZONE, dayStartHour: 0 })

const HOUR_MS = 3_600_000
const pad2 = (n: number) => String(n).padStart(2, '0')

/** Day starts are asked for again and again (today, for every habit shown), and the polyfill is slow at them. */
const starts = new Map<string, number>()
const STARTS_MAX = 20_000

/** The first instant of day `d`. */
export function dayStart(d: LocalDate, f: DayFrame): Date {
  const key = `${f.timeZone}|${f.dayStartHour}|${d}`
  let ms = starts.get(key)
  if (ms === undefined) {
    ms = instantIn(`${d}T${pad2(f.dayStartHour)}:00:00`, f.timeZone).getTime()
    if (starts.size >= STARTS_MAX) starts.delete(starts.keys().next().value!)
    starts.set(key, ms)
  }
  return new Date(ms)
}

/** The day holding `instant`. */
export function dayOf(instant: Date, f: DayFrame): LocalDate {
  // The wall clock moved back by the day start names the day everywhere but near a clock change,
  // where the day starts settle it.
  const wall = localDateTimeIn(instant, f.timeZone)
  let d = new Date(Date.parse(`${wall}Z`) - f.dayStartHour * HOUR_MS).toISOString().slice(0, 10)
  const t = instant.getTime()
  for (let i = 0; i < 3 && t < dayStart(d, f).getTime(); i++) d = addDays(d, -1)
  for (let i = 0; i < 3 && t >= dayStart(addDays(d, 1), f).getTime(); i++) d = addDays(d, 1)
  return d
}

/** The day holding a wall-clock time of the frame's zone (read as `instantIn` reads it). */
export const dayOfLocal = (t: LocalDateTime, f: DayFrame): LocalDate => dayOf(instantIn(t, f.timeZone), f)

/** The wall-clock time in the frame's zone of an instant. */
export const localNow = (instant: Date, f: DayFrame): LocalDateTime => localDateTimeIn(instant, f.timeZone)

/** A window of days as instants: from its first day's start to the start of the day after its last. */
export const windowInstants = (w: Window, f: DayFrame): { start: Date; end: Date } => ({ start: dayStart(w.start, f), end: dayStart(w.end, f) })
