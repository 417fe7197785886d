/** Measurements several benches take against a running Questline (all-in-one or split). */
import { performance } from 'node:perf_hooks'
import { call } from './http.js'
import { load, percentile, type LoadResult } from './load.js'

export async function inBatches<T>(n: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < n; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, k) => make(i + k)))))
  return out
}

export const nowLocal = () => new Date().toISOString().slice(0, 19)

const round = (ms: number) => Math.round(ms * 10) / 10

export const measureAvatarReads = (base: string, token: string, avatarId: string, connections: number, duration: number): Promise<LoadResult> =>
  load({ url: `${base}/api/v1/avatars/${avatarId}`, headers: { authorization: `Bearer ${token}` }, connections, duration })

const newHabit = async (base: string, token: string, avatarId: string, i: number) =>
  ((await call(base, token, 'POST', '/api/v1/habits', { avatarId, title: `habit ${i}`, recurrenceType: 'DAILY' })) as { id: string }).id

/** Attends on `n` distinct habits (each its first completion), `connections` at a time. */
export async function measureAttends(base: string, token: string, avatarId: string, n: number, connections: number): Promise<LoadResult> {
  const habits = await inBatches(n, 16, (i) => newHabit(base, token, avatarId, i))
  return load({
    url: base, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ date: nowLocal() }),
    connections, amount: n, paths: habits.map((h) => `/api/v1/habits/${h}/attend`),
  })
}

/** End to end: from an attend request to its reward readable on the avatar (events and consumer), one at a time. */
export async function measureRewardDelay(base: string, token: string, avatarId: string, probes: number): Promise<{ p50: number; p99: number }> {
  const habits = await inBatches(probes, 16, (i) => newHabit(base, token, avatarId, 10_000 + i))
  const delays: number[] = []
  for (const habit of habits) {
    const before = ((await call(base, token, 'GET', `/api/v1/avatars/${avatarId}/money`)) as { amount: number }).amount
    const t0 = performance.now()
    await call(base, token, 'POST', `/api/v1/habits/${habit}/attend`, { date: nowLocal() })
    for (;;) {
      const money = ((await call(base, token, 'GET', `/api/v1/avatars/${avatarId}/money`)) as { amount: number }).amount
      if (money > before) break
      if (performance.now() - t0 > 10_000) throw new Error('a reward did not arrive within 10 s')
    }
    delays.push(performance.now() - t0)
  }
  delays.sort((a, b) => a - b)
  return { p50: round(percentile(delays, 50)), p99: round(percentile(delays, 99)) }
}
