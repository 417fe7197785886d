import ICAL from 'ical.js'
import { Temporal } from 'temporal-polyfill'
import { describe, expect, test } from 'vitest'
import { calendarText, escapeText, foldLine, vtimezone } from './ical.js'

const octets = (s: string) => Buffer.byteLength(s, 'utf8')
const unfold = (text: string) => text.replace(/\r\n[ \t]/g, '')

describe('TEXT values', () => {
  test('backslash, semicolon and comma are escaped, line breaks written \\n', () => {
    expect(escapeText('a\\b;c,d\ne\r\nf\rg')).toBe('a\\\\b\\;c\\,d\\ne\\nf\\ng')
  })

  test('control characters are dropped, a tab and a colon stay', () => {
    expect(escapeText('x\u0007y\u0000z\u007f\tw:v')).toBe('xyz\tw:v')
  })
})

describe('folding at 75 octets', () => {
  test('a long ASCII line: 75 octets, then a space and 74 at most', () => {
    const line = `SUMMARY:${'x'.repeat(192)}` // 200 octets = 75 + (1 + 74) + (1 + 51)
    const folded = foldLine(line).split('\r\n')
    expect(folded.map(octets)).toEqual([75, 75, 52])
    expect(folded.slice(1).every((l) => l.startsWith(' '))).toBe(true)
    expect(unfold(folded.join('\r\n'))).toBe(line)
  })

  test('never inside a character: two-octet é and four-octet emoji stay whole', () => {
    // 8 + 33 × 2 = 74: the 34th é (2 octets) would make 76, so it begins the next line.
    const accents = `SUMMARY:${'é'.repeat(40)}`
    const lines = foldLine(accents).split('\r\n')
    expect(lines.map(octets)).toEqual([74, 1 + 7 * 2])
    // 8 + 16 × 4 = 72: the 17th emoji would make 76.
    const emoji = `SUMMARY:${'😀'.repeat(20)}`
    expect(foldLine(emoji).split('\r\n').map(octets)).toEqual([72, 1 + 4 * 4])
    for (const l of [...lines, ...foldLine(emoji).split('\r\n')]) expect(l).not.toContain('\uFFFD')
    expect(unfold(foldLine(emoji))).toBe(emoji)
  })

  test('a short line is left alone; an object ends every line with CRLF', () => {
    expect(foldLine('VERSION:2.0')).toBe('VERSION:2.0')
    const text = calendarText(['BEGIN:VCALENDAR', `X-LONG:${'y'.repeat(100)}`, 'END:VCALENDAR'])
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true)
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
  })
})

describe('VTIMEZONE', () => {
  const from = new Date('2026-03-01T00:00:00Z')
  const until = new Date('2027-03-01T00:00:00Z')

  test('Berlin: two yearly rules, the last Sundays of March and October', () => {
    expect(vtimezone('Europe/Berlin', from, until)).toEqual([
      'BEGIN:VTIMEZONE', 'TZID:Europe/Berlin', 'X-LIC-LOCATION:Europe/Berlin',
      'BEGIN:DAYLIGHT', 'DTSTART:20250330T020000', 'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU', 'TZOFFSETFROM:+0100', 'TZOFFSETTO:+0200', 'END:DAYLIGHT',
      'BEGIN:STANDARD', 'DTSTART:20251026T030000', 'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100', 'END:STANDARD',
      'END:VTIMEZONE',
    ])
  })

  test('New York: the second Sunday of March, the first of November', () => {
    const lines = vtimezone('America/New_York', from, until)
    expect(lines).toContain('RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU')
    expect(lines).toContain('RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU')
  })

  test('a zone without changes: one observance with its offset (half hours too)', () => {
    expect(vtimezone('Asia/Kolkata', from, until).slice(3, -1)).toEqual([
      'BEGIN:STANDARD', 'DTSTART:19700101T000000', 'TZOFFSETFROM:+0530', 'TZOFFSETTO:+0530', 'END:STANDARD',
    ])
  })

  /** The instant ical.js reads from our VTIMEZONE for a wall-clock time, as a calendar reads DTSTART;TZID=… */
  function instantByIcal(zone: ICAL.Timezone, wall: Temporal.PlainDateTime): number {
    const { year, month, day, hour, minute, second } = wall
    return new ICAL.Time({ year, month, day, hour, minute, second, isDate: false }, zone).toUnixTime() * 1000
  }
  const HOUR = 3_600_000

  test.each([
    // yearly rules of several shapes (last, nth, "Sun>=2", "Fri>=23"), a half-hour change, no
    // summer time any more, changes by no yearly rule (Ramadan)
    ['Europe/Berlin', 5], ['America/New_York', 5], ['America/Santiago', 5], ['Asia/Jerusalem', 5], ['Australia/Lord_Howe', 5],
    ['Pacific/Apia', 5], ['UTC', 5], ['Africa/Casablanca', 0],
  ])('%s: ical.js reads each wall-clock time as the instant the zone gives it, over the span and %i years more', (name, yearsMore) => {
    const component = new ICAL.Component(ICAL.parse(calendarText(['BEGIN:VCALENDAR', ...vtimezone(name, from, until), 'END:VCALENDAR'])))
    const zone = new ICAL.Timezone(component.getFirstSubcomponent('vtimezone')!)
    const end = until.getTime() + yearsMore * 365 * 24 * HOUR
    let checked = 0
    for (let t = from.getTime(); t < end; t += 13 * HOUR + 17 * 60_000) {
      const zoned = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(name)
      // Next to a change a wall-clock time is skipped or shown twice: which instant it names is a rule of its own (see zone.ts).
      const changes = [zoned.getTimeZoneTransition('next'), zoned.getTimeZoneTransition('previous')]
      if (changes.some((c) => c && Math.abs(c.epochMilliseconds - t) < 3 * HOUR)) continue
      expect(instantByIcal(zone, zoned.toPlainDateTime()), zoned.toString()).toBe(t)
      checked++
    }
    expect(checked).toBeGreaterThan(600)
  })
})
