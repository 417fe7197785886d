/** The tracking context's problem types: habits, their windows, settings, imports and the calendar feed (see platform/http/problem-types.ts). */
import type { ProblemCatalog } from '../../../platform/http/problem-types.js'

export const TRACKING_PROBLEMS: ProblemCatalog = {
  'invalid-recurrence': { status: 400, title: 'Invalid recurrence', description: 'A habit\'s recurrence lacks what its type needs, or has what it does not take (a WEEKLY habit names `dayOfWeek`, a MONTHLY one `dayOfMonth`, TIMES_PER_WEEK `timesPerWeek`, EVERY_N_DAYS `everyNDays`); `errors` names the field.' },
  'invalid-rest-days': { status: 400, title: 'Invalid rest days', description: 'Rest days are weekdays of a DAILY habit, and leave at least one day of the week due.' },
  'invalid-tags': { status: 400, title: 'Invalid tags', description: 'A tag is blank or too long once trimmed, or the habit has too many tags (`detail` gives the bounds).' },
  'invalid-title': { status: 400, title: 'Invalid title', description: 'A title is blank or too long once trimmed.' },
  'invalid-description': { status: 400, title: 'Invalid description', description: 'A description is too long.' },
  'invalid-time-zone': { status: 400, title: 'Invalid time zone', description: 'The time zone is not an IANA zone name (like `Europe/Berlin` or `UTC`).' },
  'invalid-day-start-hour': { status: 400, title: 'Invalid day start hour', description: 'A day starts at a whole hour in the range `detail` gives.' },
  'invalid-vacation': { status: 400, title: 'Invalid vacation', description: 'A vacation\'s dates are not real dates, it ends before it starts, or it is longer than a vacation may be.' },
  'invalid-reminder-time': { status: 400, title: 'Invalid reminder time', description: 'A reminder time is a time of day like `09:30` (HH:mm, 00:00–23:59).' },
  'habit-id-taken': { status: 409, title: 'Habit id taken', description: 'A habit with this id exists already for another avatar; choose another id, or leave it out to have one made.' },
  'attend-in-future': { status: 400, rule: true, title: 'Completion in the future', description: 'A completion may be only a little ahead of now (`detail` says how much), for clocks that differ.' },
  'before-first-window': { status: 400, rule: true, title: 'Before the first window', description: 'The date is before the habit\'s first window began, so it cannot be completed then.' },
  'window-already-completed': { status: 400, rule: true, title: 'Window already completed', description: 'The habit\'s window that holds this date is completed already; it counts once.' },
  'habit-archived': { status: 400, rule: true, title: 'Habit archived', description: 'The habit is archived: it keeps its history but is not completed until it is brought back (`PATCH …/archived` with `{"archived": false}`).' },
  'day-already-completed': { status: 400, rule: true, title: 'Day already completed', description: 'The habit was completed on this day already; a day counts at most once.' },
  'invalid-import': { status: 400, title: 'Invalid import', description: 'The file to import is not a valid export (ours, or Loop Habit Tracker\'s). `errors` names each place at fault: a JSON pointer into our export, or the CSV file, line and field. Nothing was imported.' },
  'import-too-large': { status: 413, title: 'Import too large', description: 'The file holds more habits or rows than one import takes (`detail` gives the limit). Nothing was imported; split the file.' },
  'invalid-host': { status: 400, title: 'Invalid host', description: 'The Host header does not name a server (a name or address, with an optional port), so no calendar address can be made from it.' },
}
