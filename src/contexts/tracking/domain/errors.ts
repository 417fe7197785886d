import { BadRequest, RuleViolation } from '../../../platform/errors.js'

/** `field` is the pointer of the recurrence field at fault (`/dayOfWeek`, `/recurrence/dayOfMonth`). */
export class InvalidRecurrence extends BadRequest {
  constructor(detail: string, field: string, message: string) {
    super(detail, 'invalid-recurrence', [{ path: field, message }])
  }
}

export class InvalidDate extends BadRequest {
  constructor(value: string) {
    super(`'${value}' is not a local date-time like 2026-03-02T08:30:00 (no zone offset).`, 'invalid-date',
      [{ path: '/date', message: 'must be a local date-time YYYY-MM-DDTHH:mm:ss[.SSS] with no offset' }])
  }
}

export class AttendInFuture extends RuleViolation {
  constructor(hours: number) {
    super('attend-in-future', `A completion may be at most ${hours} hours ahead of now.`)
  }
}

export class BeforeFirstWindow extends RuleViolation {
  constructor(firstWindowStart: string) {
    super('before-first-window', `The habit's first window starts on ${firstWindowStart}; earlier dates cannot be attended.`)
  }
}

export class WindowAlreadyCompleted extends RuleViolation {
  constructor(start: string, end: string) {
    super('window-already-completed', `The window from ${start} to ${end} is already completed.`)
  }
}

/** An archived habit is kept with its history, and is not attended until it is brought back. */
export class HabitArchived extends RuleViolation {
  constructor(id: string) {
    super('habit-archived', `Habit '${id}' is archived; bring it back (PATCH its archived to false) to complete it.`)
  }
}

/** TIMES_PER_WEEK: one completion a day. */
export class DayAlreadyCompleted extends RuleViolation {
  constructor(day: string) {
    super('day-already-completed', `This habit was already completed on ${day}; it counts at most once a day.`)
  }
}

export class InvalidTimeZone extends BadRequest {
  constructor(zone: string) {
    super(`'${zone}' is not an IANA time zone.`, 'invalid-time-zone', [{ path: '/timeZone', message: 'must be an IANA time zone' }])
  }
}

/** `field` is the pointer of the reminder time at fault (`/reminderTime`). */
export class InvalidReminderTime extends BadRequest {
  constructor(value: string, field = '/reminderTime') {
    super(`'${value}' is not a time of day like 09:30 (HH:mm, 00:00–23:59).`, 'invalid-reminder-time',
      [{ path: field, message: 'must be a time of day HH:mm, 00:00–23:59' }])
  }
}
