import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { closeDivision, demotionRank, ranked, seasonAt, seasonOf, type Standing, type Tier } from './league.js'
import { DIVISION_SIZE, LEAGUE_TIERS } from './rules.js'

const at = (ms: number) => new Date(Date.UTC(2026, 10, 23) + ms)
const standings = (n: number): Standing[] => Array.from({ length: n }, (_, i) => ({ avatarId: `a${String(i).padStart(2, '0')}`, score: 100 - i, reachedAt: at(i) }))

describe('seasons', () => {
  it('are ISO weeks from Monday 00:00 UTC', () => {
    expect(seasonAt(new Date('2026-11-28T14:00:00Z'))).toEqual({
      id: '2026-W48', startsAt: new Date('2026-11-23T00:00:00Z'), endsAt: new Date('2026-11-30T00:00:00Z'),
    })
    expect(seasonAt(new Date('2026-11-29T23:59:59.999Z')).id).toBe('2026-W48')
    expect(seasonAt(new Date('2026-11-30T00:00:00Z')).id).toBe('2026-W49')
    expect(seasonAt(new Date('2027-01-01T00:00:00Z')).id).toBe('2026-W53')
    expect(seasonAt(new Date('2024-12-30T00:00:00Z')).id).toBe('2025-W01')
  })

  it('are found again by their id', () => {
    fc.assert(fc.property(fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }), (d) => {
      const s = seasonAt(d)
      expect(seasonOf(s.id)).toEqual(s)
      expect(d >= s.startsAt && d < s.endsAt).toBe(true)
    }))
    expect(seasonOf('2026-W54')).toBeUndefined()
    expect(seasonOf('week')).toBeUndefined()
  })
})

describe('ranking', () => {
  it('puts the higher score first and, of equal scores, who reached it first', () => {
    const r = ranked([
      { avatarId: 'late', score: 50, reachedAt: at(2) }, { avatarId: 'early', score: 50, reachedAt: at(1) }, { avatarId: 'top', score: 60, reachedAt: at(3) },
    ])
    expect(r.map((s) => [s.avatarId, s.rank])).toEqual([['top', 1], ['early', 2], ['late', 3]])
  })
})

describe('closing a division', () => {
  it('promotes the top 7, demotes the bottom 5 and pays ranks 1–3', () => {
    const r = closeDivision('SILVER', standings(DIVISION_SIZE))
    expect(r.filter((x) => x.outcome === 'PROMOTED').map((x) => x.rank)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(r.filter((x) => x.outcome === 'DEMOTED').map((x) => x.rank)).toEqual([26, 27, 28, 29, 30])
    expect(r.slice(0, 4).map((x) => x.reward)).toEqual([50, 30, 20, 0])
    expect(r[0]!.nextTier).toBe('GOLD')
    expect(r[29]!.nextTier).toBe('BRONZE')
  })

  it('demotes nobody from the lowest tier or in a division of 12 or fewer', () => {
    expect(closeDivision('BRONZE', standings(30)).some((x) => x.outcome === 'DEMOTED')).toBe(false)
    expect(closeDivision('GOLD', standings(12)).some((x) => x.outcome === 'DEMOTED')).toBe(false)
    expect(demotionRank('GOLD', 13)).toBe(9)
  })

  it('promotes nobody from the highest tier', () => {
    expect(closeDivision('DIAMOND', standings(30)).some((x) => x.outcome === 'PROMOTED')).toBe(false)
  })

  it('moves everyone at most one tier and never both ways', () => {
    fc.assert(fc.property(fc.constantFrom(...LEAGUE_TIERS), fc.integer({ min: 1, max: DIVISION_SIZE }), (tier: Tier, n) => {
      const r = closeDivision(tier, standings(n))
      expect(r.map((x) => x.rank)).toEqual(Array.from({ length: n }, (_, i) => i + 1))
      for (const x of r) expect(Math.abs(LEAGUE_TIERS.indexOf(x.nextTier) - LEAGUE_TIERS.indexOf(tier))).toBeLessThanOrEqual(x.outcome === 'STAYED' ? 0 : 1)
      expect(r.filter((x) => x.outcome === 'PROMOTED').length).toBeLessThanOrEqual(7)
      expect(r.filter((x) => x.outcome === 'DEMOTED').length).toBeLessThanOrEqual(5)
    }))
  })
})
