/**
 * Weekly leagues through the API (DESIGN §9.5): divisions filling as avatars enter with their first
 * scored experience of the week (30 each, concurrent entries included), what scores (play, quest
 * rewards) and what does not (grants), and the season's end on the test clock: ranks, promotion,
 * rewards paid once with the job run twice at once, results in the history, the inbox and the
 * export, the next week's tier; demotion two weeks on; and the leagues' rows gone with the account.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { LEAGUE_CLOSE_JOB } from '../src/contexts/avatar/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { clockedPlayers } from './support/clocked-players.js'
import { attend, avatarOf, newHabit } from './support/habits.js'
import type { Player } from './support/players.js'
import { copyOf, createQuest, join, READ } from './support/quests.js'

// Wednesday 5 June 2030, 10:00 UTC: season 2030-W23, far from the other suites' weeks.
const clock = new ManualClock(new Date('2030-06-05T10:00:00Z'))
let app: TestApp
beforeAll(async () => {
  app = await buildTestApp({ clock })
})
afterAll(() => app.close())

const { moveTo, player } = clockedPlayers(() => app, clock)

interface League {
  season: { id: string; startsAt: string; endsAt: string }
  tier: string
  waiting: boolean
  division: { id: string; members: { avatarId: string; name: string; score: number; rank: number }[] } | null
  promotionRank: number | null
  demotionRank: number | null
}

async function leagueOf(viewer: Player, avatarId: string): Promise<League> {
  const res = await app.inject({ url: `/api/v1/avatars/${avatarId}/league`, headers: viewer.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

const scoreOf = (l: League, avatarId: string) => l.division?.members.find((m) => m.avatarId === avatarId)?.score ?? 0

/** One completed habit of the day: play, so its experience scores. */
async function play(p: Player, date: string): Promise<void> {
  const res = await attend(app, p, await newHabit(app, p), date)
  expect(res.statusCode, res.body).toBe(204)
}

let players: Player[] = []

describe('entering the week', () => {
  test('before any play the avatar sits in BRONZE with no division; an unknown avatar is 404', async () => {
    const p = await player()
    const l = await leagueOf(p, p.avatarId)
    expect(l).toMatchObject({
      season: { id: '2030-W23', startsAt: '2030-06-03T00:00:00.000Z', endsAt: '2030-06-10T00:00:00.000Z' },
      tier: 'BRONZE', waiting: false, division: null, promotionRank: 7, demotionRank: null,
    })
    expect((await app.inject({ url: '/api/v1/avatars/nobody-here/league', headers: p.auth })).statusCode).toBe(404)
    expect((await app.inject({ url: '/api/v1/avatars/nobody-here/league/history', headers: p.auth })).statusCode).toBe(404)
    players.push(p)
  })

  test('31 avatars entering at once fill one division of 30 and open a second', async () => {
    players = [...players, ...(await Promise.all(Array.from({ length: 30 }, () => player())))]
    const habits = await Promise.all(players.map((p) => newHabit(app, p)))
    const answers = await Promise.all(players.map((p, i) => attend(app, p, habits[i]!, '2030-06-05T09:00:00')))
    expect(answers.map((r) => r.statusCode)).toEqual(players.map(() => 204))
    await app.settle()
    const leagues = await Promise.all(players.map((p) => leagueOf(players[0]!, p.avatarId)))
    const sizes = new Map<string, number>()
    for (const l of leagues) sizes.set(l.division!.id, l.division!.members.length)
    expect([...sizes.values()].sort((a, b) => a - b)).toEqual([1, 30])
    const full = leagues.find((l) => l.division!.members.length === 30)!
    expect(full.division!.members.map((m) => m.rank)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(full.division!.members.every((m) => m.score > 0 && m.name === 'Hero')).toBe(true)
    // Which of the 31 came last, alone in the second division, is a race: the tests below follow
    // players[0] as a member of the full one, so the lone avatar goes to the end of the list.
    players.push(...players.splice(leagues.findIndex((l) => l.division!.members.length === 1), 1))
  })
})

describe('what scores', () => {
  test('play scores; a self-grant in open mode and a service grant do not', async () => {
    const p = players[0]!
    const before = scoreOf(await leagueOf(p, p.avatarId), p.avatarId)
    const grant = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/experience/grant`, headers, payload: { amount: 40 } })
    expect((await grant(p.auth)).statusCode).toBe(204)
    const service = { authorization: `Bearer ${await app.issueToken('00000000-0000-4000-8000-000000000001', 'service')}` }
    expect((await grant(service)).statusCode).toBe(204)
    expect(scoreOf(await leagueOf(p, p.avatarId), p.avatarId)).toBe(before)
    await play(p, '2030-06-05T09:00:00')
    await app.settle()
    const after = await leagueOf(p, p.avatarId)
    expect(scoreOf(after, p.avatarId)).toBeGreaterThan(before)
    expect(after.division!.members[0]!.avatarId).toBe(p.avatarId)
  })

  test("a quest's reward scores with the habit that completed it", async () => {
    const p = players[0]!
    const totalOf = async () => {
      const res = await app.inject({ url: `/api/v1/leaderboards/experience?around=${p.avatarId}&limit=1`, headers: p.auth })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().items[0].experience as number
    }
    const [scoreBefore, totalBefore] = [scoreOf(await leagueOf(p, p.avatarId), p.avatarId), await totalOf()]
    const quest = await createQuest(app, p, { habits: [READ], duration: 'PT1H', reward: { experience: 100, money: 0 } })
    const joined = await join(app, p, quest)
    expect(joined.statusCode, joined.body).toBe(200)
    expect(joined.json()).toMatchObject({ required: 1, payout: { experience: 20 } })
    expect((await attend(app, p, copyOf(joined.json(), 'read'), '2030-06-05T10:00:00')).statusCode).toBe(204)
    await app.settle()
    await app.settle()
    const gained = (await totalOf()) - totalBefore
    // The habit's experience and the quest's 20, all of it play.
    expect(gained).toBeGreaterThan(20)
    expect(scoreOf(await leagueOf(p, p.avatarId), p.avatarId) - scoreBefore).toBe(gained)
  })
})

describe('the season end', () => {
  test('ranks, promotes and pays once, with the job run twice at once and again', async () => {
    const winner = players[0]!
    const second = (await leagueOf(winner, winner.avatarId)).division!.members[1]!.avatarId
    const eighth = (await leagueOf(winner, winner.avatarId)).division!.members[7]!.avatarId
    const moneyBefore = (await avatarOf(app, winner)).money.amount
    await moveTo('2030-06-10T00:05:00Z')
    // The runner-up plays the new week before the job has closed the last: it waits in no division
    // rather than play the week in the tier it is leaving.
    await play(players.find((p) => p.avatarId === second)!, '2030-06-10T00:05:00')
    await app.settle()
    expect(await leagueOf(winner, second)).toMatchObject({ season: { id: '2030-W24' }, tier: 'BRONZE', waiting: true, division: null })
    await Promise.all([app.runJob(LEAGUE_CLOSE_JOB), app.runJob(LEAGUE_CLOSE_JOB)])
    await app.settle()
    await app.runJob(LEAGUE_CLOSE_JOB)
    await app.settle()
    expect((await avatarOf(app, winner)).money.amount - moneyBefore).toBe(50)
    // ...then the job placed it in the tier its result set.
    expect(await leagueOf(winner, second)).toMatchObject({ tier: 'SILVER', waiting: false, division: { members: [{ avatarId: second, rank: 1 }] } })

    const history = async (avatarId: string) => {
      const res = await app.inject({ url: `/api/v1/avatars/${avatarId}/league/history`, headers: winner.auth })
      expect(res.statusCode, res.body).toBe(200)
      return res.json()
    }
    expect(await history(winner.avatarId)).toEqual({
      items: [{ season: '2030-W23', tier: 'BRONZE', rank: 1, score: expect.any(Number), result: 'PROMOTED', reward: 50 }], next: null,
    })
    expect((await history(second)).items[0]).toMatchObject({ rank: 2, result: 'PROMOTED', reward: 30 })
    expect((await history(eighth)).items[0]).toMatchObject({ rank: 8, result: 'STAYED', reward: 0 })

    const inbox = await app.inject({ url: `/api/v1/avatars/${winner.avatarId}/notifications`, headers: winner.auth })
    expect(inbox.statusCode, inbox.body).toBe(200)
    const told = inbox.json().items.filter((n: { type: string }) => n.type === 'LEAGUE_RESULT')
    expect(told).toHaveLength(1)
    expect(told[0].data).toMatchObject({ season: '2030-W23', tier: 'BRONZE', nextTier: 'SILVER', rank: 1, result: 'PROMOTED', reward: 50 })

    const next = await leagueOf(winner, winner.avatarId)
    expect(next).toMatchObject({ season: { id: '2030-W24' }, tier: 'SILVER', division: null })
    expect((await leagueOf(winner, eighth)).tier).toBe('BRONZE')
  })

  test('the history pages by season, and a cursor naming none is 400', async () => {
    const p = players[0]!
    const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}/league/history?limit=1&cursor=1999-W01`, headers: p.auth })
    expect(res.statusCode).toBe(400)
    expect(res.json().type).toContain('invalid-cursor')
  })

  test("the owner's export holds the tier, the week's entry and the season's result", async () => {
    const p = players[0]!
    const res = await app.inject({ url: '/api/v1/me/export', headers: p.auth })
    expect(res.statusCode, res.body).toBe(200)
    const { league } = res.json().avatars[0]
    expect(league).toMatchObject({
      tier: 'SILVER',
      entries: [{ season: '2030-W23', tier: 'BRONZE', division: expect.any(Number), score: expect.any(Number) }],
      results: [{ season: '2030-W23', tier: 'BRONZE', rank: 1, result: 'PROMOTED', reward: 50 }],
    })
    expect(league.results[0].score).toBe(league.entries[0].score)
  })
})

/** Each player plays once at `date` (the clock's day), all at once. */
async function playAll(group: Player[], date: string): Promise<void> {
  const habits = await Promise.all(group.map((p) => newHabit(app, p)))
  const answers = await Promise.all(group.map((p, i) => attend(app, p, habits[i]!, date)))
  expect(answers.map((r) => r.statusCode)).toEqual(group.map(() => 204))
  await app.settle()
}

async function closeSeasonAt(iso: string): Promise<void> {
  await moveTo(iso)
  await app.runJob(LEAGUE_CLOSE_JOB)
  await app.settle()
}

describe('demotion', () => {
  const tiersOf = async (group: Player[]) => Promise.all(group.map(async (p) => ({ p, tier: (await leagueOf(p, p.avatarId)).tier })))
  const inTier = async (group: Player[], tier: string) => (await tiersOf(group)).filter((t) => t.tier === tier).map((t) => t.p)

  test('a division of more than 12 sends its bottom 5 down a tier, its top 7 up', async () => {
    const bronze = await inTier(players, 'BRONZE')
    expect(bronze).toHaveLength(23)
    // Week 24: the BRONZE players play, and 7 of them go up; the runner-up, alone in SILVER, goes up to GOLD.
    await moveTo('2030-06-12T10:00:00Z')
    await playAll(bronze, '2030-06-12T09:00:00')
    await closeSeasonAt('2030-06-17T00:05:00Z')
    expect(await inTier(bronze, 'SILVER')).toHaveLength(7)

    // Week 25: the 14 SILVER players play in one division.
    const division = await inTier(players, 'SILVER')
    expect(division).toHaveLength(14)
    await moveTo('2030-06-19T10:00:00Z')
    await playAll(division, '2030-06-19T09:00:00')
    const week = await leagueOf(division[0]!, division[0]!.avatarId)
    expect(week).toMatchObject({ tier: 'SILVER', promotionRank: 7, demotionRank: 10 })
    expect(week.division!.members).toHaveLength(14)
    await closeSeasonAt('2030-06-24T00:05:00Z')

    const results = await Promise.all(division.map(async (p) => {
      const res = await app.inject({ url: `/api/v1/avatars/${p.avatarId}/league/history?limit=1`, headers: p.auth })
      expect(res.statusCode, res.body).toBe(200)
      return { ...res.json().items[0], tierNow: (await leagueOf(p, p.avatarId)).tier }
    }))
    const byRank = results.sort((a, b) => a.rank - b.rank)
    expect(byRank.map((r) => r.rank)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1))
    expect(byRank.every((r) => r.season === '2030-W25' && r.tier === 'SILVER')).toBe(true)
    expect(byRank.map((r) => r.result)).toEqual([...Array(7).fill('PROMOTED'), ...Array(2).fill('STAYED'), ...Array(5).fill('DEMOTED')])
    expect(byRank.map((r) => r.tierNow)).toEqual([...Array(7).fill('GOLD'), ...Array(2).fill('SILVER'), ...Array(5).fill('BRONZE')])
    expect(byRank.map((r) => r.reward)).toEqual([50, 30, 20, ...Array(11).fill(0)])
  })
})

describe('account deletion', () => {
  test("the account's league entries, results and tier go with it", async () => {
    const p = players[0]!
    const count = async (table: string) => {
      const res = await app.database.db.execute(sql.raw(`select count(*)::int as n from avatar.${table} where avatar_id = '${p.avatarId}'`))
      return (res as unknown as { rows: { n: number }[] }).rows[0]!.n
    }
    const tables = ['league_entries', 'league_results', 'league_tiers']
    expect((await Promise.all(tables.map(count))).every((n) => n > 0)).toBe(true)
    const res = await app.inject({ method: 'DELETE', url: '/api/v1/me', headers: p.auth, payload: { password: p.password } })
    expect(res.statusCode, res.body).toBe(204)
    await app.settle()
    expect(await Promise.all(tables.map(count))).toEqual([0, 0, 0])
    const other = players[1]!
    expect((await app.inject({ url: `/api/v1/avatars/${p.avatarId}/league`, headers: other.auth })).statusCode).toBe(404)
  })
})
