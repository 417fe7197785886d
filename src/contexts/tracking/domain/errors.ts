import { BadRequest, RuleViolation } from '../../../platform/errors.js'

export class InvalidRecurrence extends BadRequest {
  constructor(detail: string) {
    super(detail, 'invalid-recurrence')
  }
}

export class InvalidDate extends BadRequest {
  constructor(value: string) {
    super(`'${value}' is not a local date-time like 2026-03-02T08:30:00 (no zone offset).`, 'invalid-date')
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


export class InvalidTimeZone extends BadRequest {
  constructor(zone: string) {
    super(`'${zone}' is not an IANA time zone.`, 'invalid-time-zone')
  }
}
