/**
 * iCalendar (RFC 5545) as text, knowing no game rule: content lines with TEXT values escaped,
 * folded at 75 octets and ended by CRLF; date-times in the shapes a calendar takes; and a
 * VTIMEZONE for an IANA zone, made from the zone's own transitions (Temporal's time zone data).
 */
import { Temporal } from 'temporal-polyfill'
import { DAY_MS, daysInMonth } from './time/index.js'

const CRLF = '\r\n'
/** A content line is at most this many octets, its line break not counted (RFC 5545 §3.1). */
const LINE_OCTETS = 75

/**
 * A TEXT value (RFC 5545 §3.3.11): backslash, semicolon and comma escaped, every line break written
 * `\n`. Other control characters have no place in TEXT and are dropped (a tab stays).
 */
export function escapeText(text: string): string {
  return text
    .replace(/[\\;,]/g, (c) => `\\${c}`)
    .replace(/\r\n|\r|\n/g, '\\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
}

/** The UTF-8 length of one code point. */
const octetsOf = (codePoint: number): number => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4)

/**
 * Folds a content line (RFC 5545 §3.1): no line longer than 75 octets, each continuation starting
 * with one space, and never a split inside a character's UTF-8 sequence.
 */
export function foldLine(line: string): string {
  const lines: string[] = []
  let current = ''
  let octets = 0
  for (const ch of line) {
    const n = octetsOf(ch.codePointAt(0)!)
    if (octets + n > LINE_OCTETS) {
      lines.push(current)
      current = ' '
      octets = 1
    }
    current += ch
    octets += n
  }
  lines.push(current)
  return lines.join(CRLF)
}

/** A whole iCalendar object from its unfolded content lines: each folded, each ended by CRLF. */
export const calendarText = (lines: readonly string[]): string => lines.map((l) => foldLine(l) + CRLF).join('')

/** `2026-03-02T04:00:00` (a wall-clock time) → `20260302T040000`, for a property with TZID. */
export const localDateTimeValue = (t: string): string => t.slice(0, 19).replace(/[-:]/g, '')

/** An instant as UTC: `20260302T030000Z`. */
export const utcDateTimeValue = (instant: Date): string => `${localDateTimeValue(instant.toISOString())}Z`

// ---- VTIMEZONE ----

/** One change of a zone's offset: when, from which offset to which (ms), and the wall clock just before. */
interface OffsetChange {
  at: number
  from: number
  to: number
  /** The wall-clock time of the change in the offset before it (what DTSTART of an observance says). */
  wall: string
}

/**
 * A yearly rule of the tz database's shapes: a weekday of a month, the last one (`lastSun`) or the
 * first on or after a day (`Sun>=8`), at a wall-clock time, between two offsets.
 */
interface YearlyRule {
  month: number
  /** 0 (Sunday) … 6, as Date.getUTCDay. */
  weekday: number
  last: boolean
  onOrAfter: number
  time: string
  from: number
  to: number
}

/** A rule is trusted to go on for ever once it has held for this many years after the last change it was read from. */
const RULE_CHECK_YEARS = 10
/** Changes read at most (a zone changing several times a year over the span and the check). */
const CHANGES_MAX = 200
const ICAL_WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA']

const offsetMsAt = (ms: number, timeZone: string): number =>
  Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(timeZone).offsetNanoseconds / 1_000_000

/** The zone's offset changes after `from` and up to `until`. */
function offsetChanges(timeZone: string, from: number, until: number): OffsetChange[] {
  const out: OffsetChange[] = []
  let z = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(timeZone)
  for (let next = z.getTimeZoneTransition('next'); next && next.epochMilliseconds <= until && out.length < CHANGES_MAX; next = z.getTimeZoneTransition('next')) {
    z = next
    const at = next.epochMilliseconds
    const before = offsetMsAt(at - 1, timeZone)
    out.push({ at, from: before, to: next.offsetNanoseconds / 1_000_000, wall: new Date(at + before).toISOString().slice(0, 19) })
  }
  return out
}

function ruleDay(r: YearlyRule, year: number): number {
  if (r.last) {
    const lastDay = daysInMonth(year, r.month)
    return lastDay - ((new Date(Date.UTC(year, r.month - 1, lastDay)).getUTCDay() - r.weekday + 7) % 7)
  }
  return r.onOrAfter + ((r.weekday - new Date(Date.UTC(year, r.month - 1, r.onOrAfter)).getUTCDay() + 7) % 7)
}

/** The instant a rule's change falls on in `year`. */
function ruleInstant(r: YearlyRule, year: number): number {
  const [h, m, s] = r.time.split(':').map(Number) as [number, number, number]
  return Date.UTC(year, r.month - 1, ruleDay(r, year), h, m, s) - r.from
}

/** The rules a change could follow: the last such weekday of its month, or the first on or after some day (nth weekday first). */
function candidateRules(c: OffsetChange): YearlyRule[] {
  const year = Number(c.wall.slice(0, 4))
  const month = Number(c.wall.slice(5, 7))
  const day = Number(c.wall.slice(8, 10))
  const base = { month, weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(), time: c.wall.slice(11, 19), from: c.from, to: c.to }
  const nth = 7 * Math.floor((day - 1) / 7) + 1
  const starts = [nth, ...Array.from({ length: 7 }, (_, i) => day - 6 + i).filter((k) => k >= 1 && k !== nth)]
  return [{ ...base, last: true, onOrAfter: 0 }, ...starts.map((k) => ({ ...base, last: false, onOrAfter: k }))]
    .filter((r) => ruleInstant(r, year) === c.at)
}

/**
 * Two yearly rules that make every one of `changes` and nothing else over the years they span
 * (the first two changes name them), or undefined: the zone does not keep yearly rules there.
 */
function yearlyRules(changes: OffsetChange[]): [YearlyRule, YearlyRule] | undefined {
  if (changes.length < 2) return undefined
  const actual = new Set(changes.map((c) => c.at))
  const first = changes[0]!.at
  const last = changes[changes.length - 1]!.at
  const years = [new Date(first).getUTCFullYear(), new Date(last).getUTCFullYear()]
  const holds = (r: YearlyRule) => {
    for (let y = years[0]!; y <= years[1]!; y++) {
      const at = ruleInstant(r, y)
      if (at >= first && at <= last && !actual.has(at)) return false
    }
    return true
  }
  for (const a of candidateRules(changes[0]!).filter(holds)) {
    for (const b of candidateRules(changes[1]!).filter(holds)) {
      const made = new Set<number>()
      for (let y = years[0]!; y <= years[1]!; y++) made.add(ruleInstant(a, y)).add(ruleInstant(b, y))
      if (changes.every((c) => made.has(c.at) && (c.from === a.from && c.to === a.to ? true : c.from === b.from && c.to === b.to))) return [a, b]
    }
  }
  return undefined
}

function offsetValue(ms: number): string {
  const sign = ms < 0 ? '-' : '+'
  const total = Math.abs(ms) / 1000
  const pad = (n: number) => String(Math.floor(n)).padStart(2, '0')
  const seconds = total % 60
  return `${sign}${pad(total / 3600)}${pad((total % 3600) / 60)}${seconds ? pad(seconds) : ''}`
}

function observance(kind: 'STANDARD' | 'DAYLIGHT', wall: string, from: number, to: number, rrule?: string): string[] {
  return [
    `BEGIN:${kind}`, `DTSTART:${localDateTimeValue(wall)}`, ...(rrule ? [`RRULE:${rrule}`] : []),
    `TZOFFSETFROM:${offsetValue(from)}`, `TZOFFSETTO:${offsetValue(to)}`, `END:${kind}`,
  ]
}

function ruleText(r: YearlyRule): string {
  const day = ICAL_WEEKDAYS[r.weekday]!
  if (r.last) return `FREQ=YEARLY;BYMONTH=${r.month};BYDAY=-1${day}`
  if (r.onOrAfter % 7 === 1) return `FREQ=YEARLY;BYMONTH=${r.month};BYDAY=${(r.onOrAfter + 6) / 7}${day}`
  return `FREQ=YEARLY;BYMONTH=${r.month};BYDAY=${day};BYMONTHDAY=${Array.from({ length: 7 }, (_, i) => r.onOrAfter + i).join(',')}`
}

/** An offset change that moves the clock forward is summer time (the labels are for people; the offsets are what count). */
const kindOf = (from: number, to: number) => (to > from ? 'DAYLIGHT' as const : 'STANDARD' as const)

/**
 * Reading a zone's transitions takes the polyfill a while, and a feed asks for the same zones
 * over the same span all day (callers pass whole days): answers are remembered, the oldest
 * forgotten first.
 */
const remembered = new Map<string, readonly string[]>()
const REMEMBERED_MAX = 500

/**
 * A VTIMEZONE for an IANA zone, right for every instant from `from` to `until` and, when the zone
 * keeps yearly rules (most zones with summer time), for ever after as far as its rules are known:
 * - no change from `from` to RULE_CHECK_YEARS after `until`: one observance with its offset;
 * - changes that two yearly rules make over all those years: two observances with those RRULEs;
 * - else each change from `from` to `until` as an observance of its own, after the offset at `from`.
 * `X-LIC-LOCATION` names the zone, so a client with its own time zone data may use that instead.
 */
export function vtimezone(timeZone: string, from: Date, until: Date): string[] {
  const key = `${timeZone}|${from.getTime()}|${until.getTime()}`
  let made = remembered.get(key)
  if (!made) {
    made = makeVtimezone(timeZone, from, until)
    if (remembered.size >= REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!)
    remembered.set(key, made)
  }
  return [...made]
}

function makeVtimezone(timeZone: string, from: Date, until: Date): string[] {
  // A year early, so the observances begin before `from` whatever the time of year.
  const start = from.getTime() - 366 * DAY_MS
  const checkedUntil = until.getTime() + RULE_CHECK_YEARS * 366 * DAY_MS
  const changes = offsetChanges(timeZone, start, checkedUntil)
  const initial = offsetMsAt(start, timeZone)
  const rules = changes.length < CHANGES_MAX ? yearlyRules(changes) : undefined
  let observances: string[]
  if (changes.length === 0) observances = observance('STANDARD', '1970-01-01T00:00:00', initial, initial)
  else if (rules) {
    observances = rules.flatMap((r, i) => observance(kindOf(r.from, r.to), changes[i]!.wall, r.from, r.to, ruleText(r)))
  } else {
    observances = [
      ...observance(kindOf(changes[0]!.to, initial), '1970-01-01T00:00:00', initial, initial),
      ...changes.filter((c) => c.at <= until.getTime()).flatMap((c) => observance(kindOf(c.from, c.to), c.wall, c.from, c.to)),
    ]
  }
  return ['BEGIN:VTIMEZONE', `TZID:${timeZone}`, `X-LIC-LOCATION:${timeZone}`, ...observances, 'END:VTIMEZONE']
}
