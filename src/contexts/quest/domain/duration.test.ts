import { describe, expect, test } from 'vitest'
import { parseDuration } from './duration.js'
import { InvalidDuration } from './errors.js'

const refusal = (text: string): InvalidDuration => {
  try {
    parseDuration(text)
  } catch (e) {
    if (e instanceof InvalidDuration) return e
    throw e
  }
  throw new Error(`${text} was accepted`)
}

describe('quest durations: ISO 8601, positive, whole seconds, at most one year', () => {
  test.each(['P7D', 'PT12H', 'P1M2D', 'P1W', 'P1Y', 'P12M', 'P365D', 'P52W', 'PT8760H', 'P11M30D', 'PT1S', 'PT1.5H', 'PT0,5M', 'P1DT12H'])(
    '%s is a quest duration', (text) => {
      expect(() => parseDuration(text)).not.toThrow()
    },
  )

  test.each([
    // more than a year: a month counts 365/12 days, so 11 months and 31 days is 365.58… days
    'P2Y', 'P1Y1D', 'P1YT1S', 'P12M1D', 'P13M', 'P366D', 'P53W', 'PT8761H', 'P11M31D', 'P99999999999999999999D',
    // not positive
    'PT0S', 'P0D', 'P0Y0M0W0DT0H0M0S', 'PT0.0S',
    // not ISO 8601 as the API takes it
    '7D', 'P', 'PT', 'P-1D', '-P7D', 'p7d', 'P7d', 'P1DT', 'PT1D', 'P1H', 'P1M1Y', 'P1D1D', 'P7.D', 'P.5D', ' P7D', 'P7D ', 'P 7D', '+P7D', '',
    'P1,5,5D', 'P7DT12',
    // fractions: only on the last of hours, minutes or seconds, never finer than a second
    'P0.5Y', 'P1.5M', 'P1.5D', 'P0,5D', 'P0.5W', 'PT1.5H30M', 'PT0.5S', 'PT1.0000000001S',
  ])('%j is refused', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidDuration)
  })

  test('a refusal is a 400 naming the value and why', () => {
    expect(refusal('P-1D')).toMatchObject({ status: 400, slug: 'invalid-duration' })
    expect(refusal('P-1D').message).toContain("'P-1D'")
    expect(refusal('P2Y').message).toContain('at most 365 days')
    expect(refusal('PT0S').message).toContain('longer than zero')
  })

  test('a day and a half is refused with the way to write it', () => {
    const e = refusal('P1.5D')
    expect(e).toMatchObject({ status: 400, slug: 'invalid-duration' })
    expect(e.message).toContain('take no fraction')
    expect(e.message).toContain('P1DT12H')
  })
})
