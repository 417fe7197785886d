/** Measurements several benches take against a running Questline (all-in-one or split). */
import { performance } from 'node:perf_hooks'
import { experienceRequired } from '../../src/contexts/avatar/domain/rules.js'
import { experienceForStreak } from '../../src/contexts/tracking/domain/rules.js'
import { call } from './http.js'
import { load, percentile, type LoadResult } from './load.js'

export async function inBatches<T>(n: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < n; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, k) => make(i + k)))))
  return out
}

export const nowLocal = () => new Date().toISOString().slice(0, 19)

const round = (ms: number) => Math.round(ms * 10) / 10
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** How long to wait for rewards before calling the platform stuck. */
const REWARD_TIMEOUT_MS = 60_000

export const measureAvatarReads = (base: string, token: string, avatarId: string, connections: number, duration: number): Promise<LoadResult> =>
  load({ url: `${base}/api/v1/avatars/${avatarId}`, headers: { authorization: `Bearer ${token}` }, connections, duration })

const newHabit = async (base: string, token: string, avatarId: string, i: number) =>
  ((await call(base, token, 'POST', '/api/v1/habits', { avatarId, title: `habit ${i}`, recurrenceType: 'DAILY' })) as { id: string }).id

/** An avatar's Level as the API answers it. */
export interface Level {
  levelNumber: number
  currentExperience: number
}

/** Experience earned over an avatar's life: every level it left, plus what it holds in this one. */
export function levelTotal(level: Level): number {
  let total = level.currentExperience
  for (let l = 1; l < level.levelNumber; l++) total += experienceRequired(l)
  return total
}

/** The avatar's total experience, read through the public API. */
export async function totalExperience(base: string, token: string, avatarId: string): Promise<number> {
  return levelTotal((await call(base, token, 'GET', `/api/v1/avatars/${avatarId}/level`)) as Level)
}

/** Polls `read` (an avatar's total experience) until it reaches `target`; answers when it did (performance.now()). */
export async function experienceReaches(read: () => Promise<number>, target: number, since: number, everyMs: number): Promise<number> {
  for (;;) {
    if ((await read()) >= target) return performance.now()
    if (performance.now() - since > REWARD_TIMEOUT_MS) throw new Error(`rewards were not all visible within ${REWARD_TIMEOUT_MS / 1000} s`)
    if (everyMs > 0) await sleep(everyMs)
  }
}

export interface EndToEnd {
  /** The attend requests alone: their rate and latency. */
  requests: LoadResult
  /** From the first attend until every reward shows on the avatar. */
  elapsedMs: number
  /** n / elapsed. */
  perSecond: number
}

/**
 * Attends on `n` distinct habits (each its first completion, `connections` at a time), timed end
 * to end: from the first request until the avatar's experience holds all `n` rewards.
 */
export async function measureAttendsEndToEnd(base: string, token: string, avatarId: string, n: number, connections: number): Promise<EndToEnd> {
  const habits = await inBatches(n, 16, (i) => newHabit(base, token, avatarId, 20_000 + i))
  const target = (await totalExperience(base, token, avatarId)) + n * experienceForStreak(1)
  const t0 = performance.now()
  const requests = await load({
    url: base, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ date: nowLocal() }),
    connections: Math.min(connections, n), amount: n, paths: habits.map((h) => `/api/v1/habits/${h}/attend`),
  })
  if (requests.non2xx > 0 || requests.errors > 0) throw new Error(`attends: ${requests.non2xx} non-2xx, ${requests.errors} errors`)
  const t1 = await experienceReaches(() => totalExperience(base, token, avatarId), target, t0, 20)
  const elapsedMs = t1 - t0
  return { requests, elapsedMs: round(elapsedMs), perSecond: n / (elapsedMs / 1000) }
}

/** End to end: from an attend request to its experience readable on the avatar (events and consumer), one at a time. */
export async function measureRewardDelay(base: string, token: string, avatarId: string, probes: number): Promise<{ p50: number; p99: number }> {
  const habits = await inBatches(probes, 16, (i) => newHabit(base, token, avatarId, 10_000 + i))
  const delays: number[] = []
  for (const habit of habits) {
    const before = await totalExperience(base, token, avatarId)
    const t0 = performance.now()
    await call(base, token, 'POST', `/api/v1/habits/${habit}/attend`, { date: nowLocal() })
    delays.push((await experienceReaches(() => totalExperience(base, token, avatarId), before + 1, t0, 0)) - t0)
  }
  delays.sort((a, b) => a - b)
  return { p50: round(percentile(delays, 50)), p99: round(percentile(delays, 99)) }
}
