import { performance } from 'node:perf_hooks'
import { Counter, Gauge } from 'prom-client'
import type { Logger } from '../log.js'
import type { MetricsSource } from './metrics.js'

/** The last reading of a sampled value; undefined until the first one succeeds. */
export type Sampled<T> = () => T | undefined

/** What a metrics source asks for: a value read in the background, answered from the last reading. */
export interface BackgroundReads {
  sampled<T>(name: string, read: () => Promise<T>): Sampled<T>
}

interface Reading {
  name: string
  read: () => Promise<unknown>
  value: unknown
  /** `performance.now()` of the last reading that succeeded. */
  at: number | undefined
}

/**
 * The one sampler of a process: reads every sampled value together, every `everyMs` once started
 * (`METRICS_SAMPLE_SECONDS`), and when asked (`sampleNow`). The values /metrics shows from the
 * database and the bus (outbox and consumer backlogs, table sizes, open sagas) are read here, so a
 * scraper that polls often, or a database that is slow or down, never puts a query on a scrape's path. A read that fails keeps the value it had and is logged; its
 * failures are counted in `metrics_sample_failures_total`, and `metrics_sample_age_seconds` tells
 * how old each value is.
 */
export class MetricsSampler implements BackgroundReads {
  private readonly readings: Reading[] = []
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  /** The sampling under way, or the last one. */
  private latest: Promise<void> = Promise.resolve()
  private readonly failures = new Counter({
    name: 'metrics_sample_failures_total',
    help: 'Background readings of metric values that failed (the values shown are then older), by sample',
    labelNames: ['sample'],
    registers: [],
  })

  constructor(
    private readonly everyMs: number,
    private readonly log?: Logger,
  ) {}

  sampled<T>(name: string, read: () => Promise<T>): Sampled<T> {
    const reading: Reading = { name, read, value: undefined, at: undefined }
    this.readings.push(reading)
    this.failures.inc({ sample: name }, 0)
    return () => reading.value as T | undefined
  }

  /** Reads every value once, after any sampling already under way (so it sees what was committed before the call). */
  sampleNow(): Promise<void> {
    this.latest = this.latest.then(() => this.readAll())
    return this.latest
  }

  /** Samples after `firstAfterMs` (now by default), then every interval until `stop`. */
  start(firstAfterMs = 0): void {
    const round = async () => {
      await this.sampleNow()
      if (this.stopped) return
      this.timer = setTimeout(() => void round(), this.everyMs)
      this.timer.unref()
    }
    if (firstAfterMs <= 0) return void round()
    this.timer = setTimeout(() => void round(), firstAfterMs)
    this.timer.unref()
  }

  /** No further sampling; a reading under way is left to finish (or fail quietly) on its own. */
  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  /** The sampler's own metrics: failures, and the age of each value. */
  readonly metrics: MetricsSource = (registry) => {
    registry.registerMetric(this.failures)
    const readings = this.readings
    new Gauge({
      name: 'metrics_sample_age_seconds',
      help: 'Seconds since each sampled metric value was last read successfully (absent until the first reading)',
      labelNames: ['sample'],
      registers: [registry],
      collect() {
        this.reset()
        const now = performance.now()
        for (const r of readings) if (r.at !== undefined) this.set({ sample: r.name }, (now - r.at) / 1000)
      },
    })
  }

  private async readAll(): Promise<void> {
    await Promise.all(this.readings.map(async (r) => {
      try {
        r.value = await r.read()
        r.at = performance.now()
      } catch (err) {
        if (this.stopped) return
        this.failures.inc({ sample: r.name })
        this.log?.warn({ err, sample: r.name }, 'reading a metric value failed; /metrics shows its last reading')
      }
    }))
  }
}
