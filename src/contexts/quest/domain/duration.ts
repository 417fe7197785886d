/**
 * Quest durations: ISO 8601, kept as the text the owner set and read (platform/time, Temporal)
 * when checked or used. Pure.
 */
import { readDuration, type Duration } from '../../../platform/time/index.js'
import { InvalidDuration } from './errors.js'
import { DURATION_MAX_DAYS } from './rules.js'

/**
 * Reads a quest duration: ISO 8601 as the API takes it (upper-case designators, a fraction only
 * on the last of hours, minutes or seconds), whole seconds, positive and at most one year
 * (rules.ts). Throws InvalidDuration (400 `invalid-duration`) saying why.
 */
export function parseDuration(text: string): Duration {
  const r = readDuration(text, { maxDays: DURATION_MAX_DAYS })
  if (!r.ok) throw new InvalidDuration(text, r.reason)
  return r.duration
}
