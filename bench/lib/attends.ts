/**
 * Attends by many players, end to end: each of `players` avatars has `habitsEach` fresh DAILY
 * habits, and every habit is attended once (its window's first completion), `connections` at a
 * time, each request with its owner's token, taking the players in turn (habit k of every player,
 * then habit k + 1). Timed from the first request until every avatar's total experience, read
 * through the target's public API, has grown by habitsEach × a first completion's experience.
 * The same steps on the platform and on the floor, through an AttendTarget.
 */
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { experienceForStreak } from '../../src/contexts/tracking/domain/rules.js'
import { keepAliveClient } from './client.js'
import { call } from './http.js'
import { load, type Target } from './load.js'
import type { Player } from './players.js'
import { experienceReaches, inBatches, levelTotal, nowLocal, sleep, type EndToEnd, type Level } from './scenarios.js'

/** Where the attends go and how their rewards are read: the platform's API or the floor's. */
export interface AttendTarget {
  base: string
  /** The avatars, in order; `auth` is what each one's requests carry. */
  avatars: { id: string; auth: Record<string, string> }[]
  /** Makes `perAvatar` fresh DAILY habits for each avatar, outside anything timed; answers their ids, avatar by avatar. */
  makeHabits(perAvatar: number): Promise<string[][]>
  attendPath(habitId: string): string
  /** GET path of an avatar's Level. */
  levelPath(avatarId: string): string
}

/** Habits made at once on the platform while setting up a round. */
const SETUP_CONCURRENCY = 16
/** A pause after setting up, so what the setup left to do in the background (events) is done before the clock starts. */
const SETTLE_MS = 1_000
/** How often an avatar whose rewards are not all there yet is read again. */
const POLL_MS = 20

const json = { 'content-type': 'application/json' }

/** The platform: players registered beforehand, one avatar each (the registration's). */
export function oursAttendTarget(base: string, players: Player[]): AttendTarget {
  return {
    base,
    avatars: players.map((p) => ({ id: p.avatarId, auth: p.auth })),
    async makeHabits(perAvatar) {
      const client = keepAliveClient(base, SETUP_CONCURRENCY)
      try {
        const ids = await inBatches(players.length * perAvatar, SETUP_CONCURRENCY, async (i) => {
          const p = players[i % players.length]!
          const res = await client.send('POST', '/api/v1/habits', p.token, { avatarId: p.avatarId, title: `attend ${i}`, recurrenceType: 'DAILY' })
          if (res.status < 200 || res.status >= 300) throw new Error(`POST /api/v1/habits: ${res.status} ${res.text.slice(0, 200)}`)
          return (JSON.parse(res.text) as { id: string }).id
        })
        return players.map((_, a) => ids.filter((_, i) => i % players.length === a))
      } finally {
        client.close()
      }
    },
    attendPath: (id) => `/api/v1/habits/${id}/attend`,
    levelPath: (id) => `/api/v1/avatars/${id}/level`,
  }
}

/** The floor: the same avatar ids (it adds them when it first sees them); habits seeded in one request. */
export function floorAttendTarget(base: string, avatarIds: string[]): AttendTarget {
  return {
    base,
    avatars: avatarIds.map((id) => ({ id, auth: {} })),
    async makeHabits(perAvatar) {
      const ids = avatarIds.map(() => Array.from({ length: perAvatar }, () => randomUUID()))
      await call(base, undefined, 'POST', '/seed/habits', { habits: ids.flatMap((habits, a) => habits.map((h) => [h, avatarIds[a]])) })
      return ids
    },
    attendPath: (id) => `/habits/${id}/attend`,
    levelPath: (id) => `/avatars/${id}/level`,
  }
}

const experienceOf = async (target: AttendTarget, a: number): Promise<number> => {
  const { id, auth } = target.avatars[a]!
  const path = target.levelPath(id)
  const res = await fetch(target.base + path, { headers: auth })
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`)
  return levelTotal((await res.json()) as Level)
}

/**
 * One round: fresh habits, then the timed attends and the wait for every reward (one avatar read
 * at a time, each until it holds its rewards: a light poll). Afterwards, untimed, every avatar must
 * hold exactly its rewards: none missing, none paid twice. (Each attend pays its experience and
 * money in one change, on the floor in one statement, so the experience tells for both; the money
 * is not checked, since the platform adds a level-up's bonus to it.)
 */
export async function measureAttendsByPlayers(target: AttendTarget, habitsEach: number, connections: number): Promise<EndToEnd> {
  const habits = await target.makeHabits(habitsEach)
  const avatars = target.avatars.map((_, a) => a)
  const reward = habitsEach * experienceForStreak(1)
  const expected = (await inBatches(avatars.length, 4, (a) => experienceOf(target, a))).map((before) => before + reward)
  const targets: Target[] = []
  for (let k = 0; k < habitsEach; k++) for (const a of avatars) targets.push({ path: target.attendPath(habits[a]![k]!), headers: target.avatars[a]!.auth })
  const n = targets.length
  await sleep(SETTLE_MS)

  const t0 = performance.now()
  const requests = await load({ url: target.base, method: 'POST', headers: json, body: JSON.stringify({ date: nowLocal() }), connections: Math.min(connections, n), amount: n, targets })
  if (requests.non2xx > 0 || requests.errors > 0) throw new Error(`attends: ${requests.non2xx} non-2xx, ${requests.errors} errors`)
  let t1 = t0
  for (const a of avatars) t1 = await experienceReaches(() => experienceOf(target, a), expected[a]!, t0, POLL_MS)
  const elapsedMs = t1 - t0

  await inBatches(avatars.length, 4, async (a) => {
    const experience = await experienceOf(target, a)
    if (experience !== expected[a]) {
      throw new Error(`avatar ${target.avatars[a]!.id}: ${experience} experience after ${habitsEach} attends, expected ${expected[a]} (${experience - expected[a]! + reward} paid)`)
    }
  })
  return { requests, elapsedMs: Math.round(elapsedMs * 10) / 10, perSecond: n / (elapsedMs / 1000) }
}
