/**
 * An avatar's day settings (DESIGN §9.3): the time zone its habits follow unless they have their
 * own, the hour its days start, and a vacation. A change governs the windows that start after the
 * day it is made on; a window already under way keeps the settings it started with (its due-ness,
 * and it ends no earlier than they said). So the settings are kept as a short history of entries,
 * each governing the windows that start from its `from` day on.
 */
import { BadRequest } from '../../../platform/errors.js'
import {
  DEFAULT_TIME_ZONE, addDays, daysBetween, dayOf, dayStart, isValidTimeZone, parseLocalDate, type DayFrame, type LocalDate, type Window,
} from '../../../platform/time/index.js'
import { InvalidTimeZone } from './errors.js'
import { DAY_START_HOUR_MAX, SETTINGS_HISTORY_MAX, VACATION_MAX_DAYS } from './rules.js'

/** Local dates, both included. */
export interface Vacation {
  from: LocalDate
  to: LocalDate
}

export interface DaySettings {
  timeZone: string
  dayStartHour: number
  vacation: Vacation | null
}

/** Settings governing the windows that start on `from` or later (until the next entry's `from`). */
export interface SettingsEntry extends DaySettings {
  from: LocalDate
}

export const DEFAULT_SETTINGS: DaySettings = Object.freeze({ timeZone: DEFAULT_TIME_ZONE, dayStartHour: 0, vacation: null })
/** Before any change: the defaults, for every window. */
export const BEGINNING: LocalDate = '0001-01-01'
export const defaultHistory = (): SettingsEntry[] => [{ from: BEGINNING, ...DEFAULT_SETTINGS }]

/** The settings now: the last entry. */
export const currentSettings = (history: readonly SettingsEntry[]): SettingsEntry => history[history.length - 1]!

/** The settings a window starting on `start` is judged by. */
export function settingsFor(history: readonly SettingsEntry[], start: LocalDate): SettingsEntry {
  for (let i = history.length - 1; i > 0; i--) if (history[i]!.from <= start) return history[i]!
  return history[0]!
}

/** The frame a habit's days are counted in: its own zone, or its avatar's; always the avatar's day start. */
export const frameOf = (s: DaySettings, ownTimeZone: string | null): DayFrame => ({ timeZone: ownTimeZone ?? s.timeZone, dayStartHour: s.dayStartHour })

/** A change as a client sends it: the fields given change, the others stay. */
export interface SettingsChange {
  timeZone?: string | undefined
  dayStartHour?: number | undefined
  vacation?: { from: string; to: string } | null | undefined
}

/**
 * Checks settings as a client sends them (a partial change on top of `current`): a known zone, a
 * day start hour 0–23, a vacation of at most 90 days that does not end before it starts.
 */
export function checkSettings(current: DaySettings, change: SettingsChange): DaySettings {
  const timeZone = change.timeZone ?? current.timeZone
  if (!isValidTimeZone(timeZone)) throw new InvalidTimeZone(timeZone)
  const dayStartHour = change.dayStartHour ?? current.dayStartHour
  if (!Number.isInteger(dayStartHour) || dayStartHour < 0 || dayStartHour > DAY_START_HOUR_MAX) {
    throw new BadRequest(`A day starts at a whole hour from 0 to ${DAY_START_HOUR_MAX}.`, 'invalid-day-start-hour',
      [{ path: '/dayStartHour', message: `must be an integer from 0 to ${DAY_START_HOUR_MAX}` }])
  }
  const vacation = change.vacation === undefined ? current.vacation : change.vacation === null ? null : checkVacation(change.vacation)
  return { timeZone, dayStartHour, vacation }
}

function checkVacation(v: { from: string; to: string }): Vacation {
  const from = parseLocalDate(v.from)
  if (!from) throw new BadRequest(`'${v.from}' is not a date like 2026-07-01.`, 'invalid-vacation', [{ path: '/vacation/from', message: 'must be a date YYYY-MM-DD' }])
  const to = parseLocalDate(v.to)
  if (!to) throw new BadRequest(`'${v.to}' is not a date like 2026-07-14.`, 'invalid-vacation', [{ path: '/vacation/to', message: 'must be a date YYYY-MM-DD' }])
  if (to < from) throw new BadRequest('A vacation cannot end before it starts.', 'invalid-vacation', [{ path: '/vacation/to', message: 'must not be before from' }])
  if (daysBetween(from, to) + 1 > VACATION_MAX_DAYS) {
    throw new BadRequest(`A vacation lasts at most ${VACATION_MAX_DAYS} days.`, 'invalid-vacation', [{ path: '/vacation/to', message: `must be at most ${VACATION_MAX_DAYS} days after from, counting both` }])
  }
  return { from, to }
}

/**
 * The history after a change made on `today` (the avatar's day by its current settings): the new
 * settings govern the windows that start from tomorrow on. Several changes the same day make one
 * entry; the oldest entries go past SETTINGS_HISTORY_MAX (their windows were judged long ago).
 */
export function changeSettings(history: readonly SettingsEntry[], next: DaySettings, today: LocalDate): SettingsEntry[] {
  // Never before the last change's day: a move back across the date line must not reach windows that began under it.
  const tomorrow = addDays(today, 1)
  const last = currentSettings(history).from
  const from = last > tomorrow ? last : tomorrow
  const kept = history.filter((e) => e.from < from)
  const out = [...kept, { timeZone: next.timeZone, dayStartHour: next.dayStartHour, vacation: next.vacation, from }]
  return out.length > SETTINGS_HISTORY_MAX ? [{ ...out[out.length - SETTINGS_HISTORY_MAX]!, from: BEGINNING }, ...out.slice(out.length - SETTINGS_HISTORY_MAX + 1)] : out
}

/** The avatar's day today, by its current settings (for a habit with its own zone: in that zone). */
export const todayOf = (history: readonly SettingsEntry[], ownTimeZone: string | null, now: Date): LocalDate =>
  dayOf(now, frameOf(currentSettings(history), ownTimeZone))

/**
 * The instant window `w` ends: the latest of its ends by the settings it started with and by every
 * change made while it ran, so a change never cuts a window short (a window made longer by one is
 * longer).
 */
export function windowEnd(history: readonly SettingsEntry[], ownTimeZone: string | null, w: Window): Date {
  const frames = [settingsFor(history, w.start), ...history.filter((e) => e.from > w.start && e.from <= w.end)]
  return new Date(Math.max(...frames.map((s) => dayStart(w.end, frameOf(s, ownTimeZone)).getTime())))
}

/** Whether window `w` has ended at `now` (`windowEnd`): the job judges a window from that instant on. */
export const hasEnded = (history: readonly SettingsEntry[], ownTimeZone: string | null, w: Window, now: Date): boolean =>
  now.getTime() >= windowEnd(history, ownTimeZone, w).getTime()

/** Whether a vacation holds the whole window (its days are w.start … w.end − 1). */
export const onVacation = (s: DaySettings, w: Window): boolean =>
  s.vacation !== null && s.vacation.from <= w.start && addDays(w.end, -1) <= s.vacation.to
