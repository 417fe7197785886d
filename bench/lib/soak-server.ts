/**
 * The server's side of the soak (bench/soak.ts): samples of its RSS (from /proc) and of its
 * /metrics (heap, event backlog, outbox lag, sagas open, vacuum and analyze time, table sizes),
 * a window's figures from them, and the wait for the event backlog to drain after the load.
 */
import { performance } from 'node:perf_hooks'
import { rssMb } from './memory.js'
import { maxOf, scrapeMetrics, sumOf } from './prometheus.js'
import { sleep } from './scenarios.js'
import { ms1 } from './soak-tallies.js'

/** What the server exposes that the process rows need; reported when missing. */
const HEAP_METRIC = 'nodejs_heap_size_used_bytes'

const mb = (bytes: number | undefined) => (bytes === undefined ? undefined : Math.round(bytes / 1024 / 1024 * 10) / 10)

export interface TableSize {
  table: string
  rows: number
  mb: number
}

export interface ProcessSample {
  rssMb: number | undefined
  heapMb: number | undefined
  /** Events committed and not published, plus events stored for a consumer and not acknowledged. */
  backlog: number | undefined
  lagS: number | undefined
  sagasOpen: number | undefined
  /** Seconds the vacuum and analyze passes have taken so far (`db_maintenance_seconds_sum`). */
  maintenanceS: number | undefined
  /** The same by table. */
  maintenanceByTable?: Map<string, number>
  tables: TableSize[]
  scrapeError?: string
}

export interface ProcessFigures {
  rssMaxMb?: number | undefined
  heapMinMb?: number | undefined
  heapMaxMb?: number | undefined
  backlogMax?: number | undefined
  lagMaxS?: number | undefined
  sagasOpenMax?: number | undefined
  /** Seconds of vacuum and analyze passes in the window (on the embedded engine, every statement waits meanwhile). */
  maintenanceS?: number | undefined
  /** The table whose passes took longest in the window, and their seconds. */
  maintenanceMost?: { table: string; s: number } | undefined
  /** CPU the server process used in the window (1 = one core busy throughout). */
  cores?: number | undefined
  /** The largest tables at the window's end. */
  tables: TableSize[]
  samples: number
  scrapeErrors: string[]
}

/** One sample of the server; the metrics it does not export are added to `missing`. */
export async function sampleProcess(base: string, pid: number, missing: Set<string>): Promise<ProcessSample> {
  const rss = await rssMb(pid)
  let metrics
  try {
    metrics = await scrapeMetrics(base)
  } catch (e) {
    return { rssMb: rss, heapMb: undefined, backlog: undefined, lagS: undefined, sagasOpen: undefined, maintenanceS: undefined, tables: [], scrapeError: (e as Error).message }
  }
  const unpublished = sumOf(metrics, 'outbox_unpublished_events')
  const consumers = (sumOf(metrics, 'event_consumer_pending') ?? 0) + (sumOf(metrics, 'event_consumer_unacknowledged') ?? 0)
  const rows = new Map((metrics.get('db_table_rows') ?? []).map((s) => [s.labels.table!, s.value]))
  const tables = (metrics.get('db_table_bytes') ?? [])
    .map((s) => ({ table: s.labels.table!, rows: rows.get(s.labels.table!) ?? NaN, mb: mb(s.value)! }))
    .sort((a, b) => b.mb - a.mb)
  for (const name of [HEAP_METRIC, 'outbox_unpublished_events', 'db_table_bytes']) if (!metrics.has(name)) missing.add(name)
  return {
    rssMb: rss,
    heapMb: mb(sumOf(metrics, HEAP_METRIC)),
    backlog: unpublished === undefined ? undefined : unpublished + consumers,
    lagS: maxOf(metrics, 'outbox_lag_seconds'),
    sagasOpen: sumOf(metrics, 'marketplace_sagas_open'),
    // No pass yet: the histogram has no samples, and the time spent is 0.
    maintenanceS: sumOf(metrics, 'db_maintenance_seconds_sum') ?? 0,
    maintenanceByTable: perTable(metrics.get('db_maintenance_seconds_sum') ?? []),
    tables,
  }
}

/** A metric's samples summed by their `table` label. */
function perTable(samples: { labels: Record<string, string>; value: number }[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const x of samples) out.set(x.labels.table ?? '', (out.get(x.labels.table ?? '') ?? 0) + x.value)
  return out
}

/** The table whose vacuum and analyze passes took longest between two readings. */
function mostMaintained(before: Map<string, number> | undefined, after: Map<string, number> | undefined): { table: string; s: number } | undefined {
  if (!after) return undefined
  let most: { table: string; s: number } | undefined
  for (const [table, total] of after) {
    const s = total - (before?.get(table) ?? 0)
    if (s > 0 && (!most || s > most.s)) most = { table, s }
  }
  return most
}

function processFigures(samples: ProcessSample[]): ProcessFigures {
  const values = (pick: (s: ProcessSample) => number | undefined) => samples.map(pick).filter((v): v is number => v !== undefined)
  const max = (pick: (s: ProcessSample) => number | undefined) => { const v = values(pick); return v.length ? Math.max(...v) : undefined }
  const min = (pick: (s: ProcessSample) => number | undefined) => { const v = values(pick); return v.length ? Math.min(...v) : undefined }
  const last = samples.filter((s) => !s.scrapeError).at(-1)
  return {
    rssMaxMb: max((s) => s.rssMb), heapMinMb: min((s) => s.heapMb), heapMaxMb: max((s) => s.heapMb),
    backlogMax: max((s) => s.backlog), lagMaxS: max((s) => s.lagS), sagasOpenMax: max((s) => s.sagasOpen),
    tables: last?.tables ?? [], samples: samples.length,
    scrapeErrors: samples.flatMap((s) => (s.scrapeError ? [s.scrapeError] : [])),
  }
}

/**
 * The server's figures for window `w` of `samples` (the samples of each window so far), with the
 * `cores` it used: the extremes of its samples, and the vacuum and analyze time since the window before.
 */
export function windowProcess(samples: ProcessSample[][], w: number, cores: number | undefined): ProcessFigures {
  const maintenanceAt = (i: number) => (i < 0 ? 0 : samples[i]!.findLast((x) => x.maintenanceS !== undefined)?.maintenanceS)
  const [before, after] = [maintenanceAt(w - 1), maintenanceAt(w)]
  const byTableAt = (i: number) => (i < 0 ? new Map<string, number>() : samples[i]!.findLast((x) => x.maintenanceByTable !== undefined)?.maintenanceByTable)
  return {
    ...processFigures(samples[w]!), cores, maintenanceS: before === undefined || after === undefined ? undefined : ms1(after - before),
    maintenanceMost: mostMaintained(byTableAt(w - 1), byTableAt(w)),
  }
}

/** Polls /metrics until no event is waiting; answers how long that took, or undefined after `timeoutMs`. */
export async function drained(base: string, pid: number, timeoutMs: number): Promise<number | undefined> {
  const t0 = performance.now()
  while (performance.now() - t0 < timeoutMs) {
    if ((await sampleProcess(base, pid, new Set())).backlog === 0) return Math.round(performance.now() - t0)
    await sleep(250)
  }
  return undefined
}
