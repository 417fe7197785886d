import { Registry } from 'prom-client'
import { expect, test } from 'vitest'
import type { Logger } from '../log.js'
import { MetricsSampler } from './metrics-sampler.js'

/** A logger that keeps its warnings. */
function warnings(): { log: Logger; seen: string[] } {
  const seen: string[] = []
  return { seen, log: { warn: (_o: unknown, msg: string) => void seen.push(msg) } as unknown as Logger }
}

test('a value is undefined until read, then the last reading; a failed reading keeps it, is logged and counted', async () => {
  const { log, seen } = warnings()
  const sampler = new MetricsSampler(60_000, log)
  const answers: (number | Error)[] = [7, new Error('database unreachable'), 9]
  const value = sampler.sampled('backlog', async () => {
    const next = answers.shift()!
    if (next instanceof Error) throw next
    return next
  })
  const registry = new Registry()
  sampler.metrics(registry, sampler)
  expect(value()).toBeUndefined()
  await sampler.sampleNow()
  expect(value()).toBe(7)
  await sampler.sampleNow()
  expect(value()).toBe(7)
  expect(seen).toHaveLength(1)
  expect(await registry.metrics()).toMatch(/^metrics_sample_failures_total\{sample="backlog"\} 1$/m)
  await sampler.sampleNow()
  expect(value()).toBe(9)
  expect(await registry.metrics()).toMatch(/^metrics_sample_age_seconds\{sample="backlog"\} \d/m)
})

test('sampling now waits for a reading under way and reads again, so it sees what was written before the call', async () => {
  const sampler = new MetricsSampler(60_000)
  let stored = 1
  let letFirstFinish!: () => void
  const firstHeld = new Promise<void>((resolve) => (letFirstFinish = resolve))
  let firstStarted!: () => void
  const started = new Promise<void>((resolve) => (firstStarted = resolve))
  let reads = 0
  const value = sampler.sampled('rows', async () => {
    const seen = stored
    if (++reads === 1) {
      firstStarted()
      await firstHeld
    }
    return seen
  })
  const first = sampler.sampleNow()
  await started
  stored = 2
  const second = sampler.sampleNow()
  letFirstFinish()
  await first
  expect(value()).toBe(1)
  await second
  expect(value()).toBe(2)
  expect(reads).toBe(2)
})

test('a start told to wait takes its first reading after that, not at once', async () => {
  let reads = 0
  const later = new MetricsSampler(60_000)
  later.sampled('count', async () => ++reads)
  later.start(60_000)
  await new Promise((resolve) => setImmediate(resolve))
  expect(reads).toBe(0)
  later.stop()
  const atOnce = new MetricsSampler(60_000)
  atOnce.sampled('count', async () => ++reads)
  atOnce.start()
  await expect.poll(() => reads).toBe(1)
  atOnce.stop()
})
