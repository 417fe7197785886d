/**
 * The soak's report (bench/soak.ts): what one engine's run holds, the calibration and each window
 * as they end, and per engine the summary (p99 by window, the server by window, the largest
 * tables, the drain and the verdict).
 */
import { OPERATIONS, type Operation } from './mix.js'
import type { PgWindow } from './pg-activity.js'
import type { Calibration, Window } from './soak-load.js'
import type { ProcessFigures, TableSize } from './soak-server.js'
import type { OperationFigures } from './soak-tallies.js'
import type { Verdict } from './soak-verdict.js'
import { fmt, table } from './table.js'

export type Engine = 'embedded' | 'postgres'

export interface EngineRun {
  engine: Engine
  population: { players: number; guild: number; quests: number; boss: string }
  calibration?: Calibration
  rate?: number
  windows: Window[]
  verdicts: Verdict[]
  /** Milliseconds after the load until the event backlog was 0; undefined when it did not drain in time. */
  drainedMs?: number | undefined
  failures: string[]
}

/** The settings the report states. */
export interface ReportSettings {
  windows: number
  windowS: number
  connections: number
  load: number
  /** SOAK_RATE, 0 when unset. */
  fixedRate: number
  drainTimeoutMs: number
  pinning: string
}

const TOP_TABLES = 3
/** A load generator this late in a window is noted under the verdict: the machine, not only the server, was busy. */
const LATE_NOTE_MS = 10

const windowName = (i: number, windowS: number) => (windowS === 60 ? `min ${i + 1}` : `${i * windowS}–${(i + 1) * windowS} s`)
const shortName = (i: number, windowS: number) => (windowS === 60 ? `m${i + 1}` : `w${i + 1}`)
const tablesText = (tables: TableSize[]) =>
  tables.slice(0, TOP_TABLES).map((t) => `${t.table} ${fmt(t.mb, 1)} MB (${fmt(t.rows)} rows)`).join(', ') || '—'

function operationRows(operations: Partial<Record<Operation, OperationFigures>>): (string | number)[][] {
  return OPERATIONS.flatMap((op) => {
    const f = operations[op]
    return f ? [[op, fmt(f.count), fmt(f.p50, 1), fmt(f.p99, 1), fmt(f.errors), fmt(f.refused), f.firstError ?? '']] : []
  })
}

const OPERATION_HEADER = ['operation', 'count', 'p50 ms', 'p99 ms', 'errors', 'refused', 'first error']
const OPERATION_RIGHT = [false, true, true, true, true, true, false]

export function printCalibration(engine: Engine, c: Calibration, s: ReportSettings): void {
  console.log(`\n${engine}, calibration: ${fmt(c.opsPerSecond, 1)} ops/s closed-loop with ${s.connections} at a time over ${fmt(c.seconds, 1)} s (latency from each start)`)
  console.log(table(OPERATION_HEADER, operationRows(c.operations), OPERATION_RIGHT))
}

const countOf = (w: Window) => Object.values(w.operations).reduce((sum, f) => sum + f.count, 0)

export function printWindow(engine: Engine, w: Window, rate: number, s: ReportSettings): void {
  const count = countOf(w)
  const p = w.process
  console.log(`\n${engine}, ${windowName(w.index, s.windowS)} of ${s.windows}: ${fmt(count)} operations (${fmt(count / s.windowS, 1)}/s; ${fmt(rate, 1)}/s scheduled), ` +
    `${fmt(w.errors)} errors; load generator late by ≤ ${fmt(w.lateMs, 1)} ms`)
  console.log(table(OPERATION_HEADER, operationRows(w.operations), OPERATION_RIGHT))
  console.log(`server: ${fmt(p.cores, 2)} cores, RSS ≤ ${fmt(p.rssMaxMb)} MB, heap used ${fmt(p.heapMinMb)}–${fmt(p.heapMaxMb)} MB, event backlog ≤ ${fmt(p.backlogMax)} ` +
    `(outbox lag ≤ ${fmt(p.lagMaxS, 2)} s), sagas open ≤ ${fmt(p.sagasOpenMax)}, vacuum and analyze ${fmt(p.maintenanceS, 1)} s${p.maintenanceMost ? ` (most: ${p.maintenanceMost.table}, ${fmt(p.maintenanceMost.s, 2)} s)` : ''}; largest tables: ${tablesText(p.tables)}` +
    (p.scrapeErrors.length ? `; /metrics failed ${p.scrapeErrors.length}×: ${p.scrapeErrors[0]}` : ''))
  const pg = w.postgres
  if (pg) {
    console.log(`postgres: ${fmt(pg.cores, 2)} cores (server ${fmt(pg.serverCores, 2)}), ${fmt(pg.checkpoints)} checkpoints (${fmt(pg.checkpointBuffers)} buffers), ${fmt(pg.walMb)} MB WAL, ` +
      `${fmt(pg.autovacuums)} autovacuums, ${fmt(pg.autoanalyzes)} autoanalyzes, ${fmt(pg.deadRows)} dead rows (most: ${pg.deadest}); backends waiting at most: ${waitingText(pg.waiting)}`)
  }
}

const waitingText = (waiting: Record<string, number>) => Object.entries(waiting).map(([type, n]) => `${type} ${n}`).join(', ') || 'none'

/** Per engine: p99 of each operation by window, the server's figures by window, the largest tables and the verdict. */
export function printSummary(runs: EngineRun[], s: ReportSettings): void {
  const long = (i: number) => windowName(i, s.windowS)
  const short = (i: number) => shortName(i, s.windowS)
  for (const run of runs) {
    const ws = run.windows
    if (ws.length === 0) {
      console.log(`\n== Soak, ${run.engine}: FAILED before any window: ${run.failures.join('; ')}`)
      continue
    }
    console.log(`\n== Soak, ${run.engine}: ${fmt(run.rate, 1)} ops/s open-loop (${fmt(s.load * 100)}% of ${fmt(run.calibration?.opsPerSecond, 1)} ops/s closed-loop with ${s.connections}` +
      `${s.fixedRate ? '; SOAK_RATE set' : ''}), ${ws.length} × ${s.windowS} s; ${run.population.players} players, guild of ${run.population.guild} against ${run.population.boss}; ${s.pinning}\n`)
    const totals = (op: Operation) => ws.reduce((sum, w) => {
      const f = w.operations[op]
      return f ? { count: sum.count + f.count, errors: sum.errors + f.errors, refused: sum.refused + f.refused } : sum
    }, { count: 0, errors: 0, refused: 0 })
    const drifting = new Set(run.verdicts.filter((v) => v.drift).map((v) => v.what))
    console.log('p99 ms by window (p50: the median of the windows\' p50)')
    console.log(table(
      ['operation', 'count', 'errors', 'refused', ...ws.map((w) => short(w.index)), 'p50', 'drift'],
      OPERATIONS.filter((op) => totals(op).count > 0).map((op) => {
        const t = totals(op)
        const p50s = ws.flatMap((w) => (w.operations[op] ? [w.operations[op]!.p50] : []))
        return [op, fmt(t.count), fmt(t.errors), fmt(t.refused), ...ws.map((w) => fmt(w.operations[op]?.p99, 1)),
          p50s.length ? fmt(p50s.sort((a, b) => a - b)[Math.floor(p50s.length / 2)], 1) : '', drifting.has(`${op}: p99 ms`) ? 'DRIFT' : '']
      }),
      [false, true, true, true, ...ws.map(() => true), true, false],
    ))
    const row = (name: string, pick: (p: ProcessFigures) => number | undefined, digits = 0, verdict?: string) =>
      [name, ...ws.map((w) => fmt(pick(w.process), digits)), verdict && drifting.has(verdict) ? 'DRIFT' : '']
    console.log('\nserver by window')
    console.log(table(['', ...ws.map((w) => short(w.index)), 'drift'], [
      ['operations/s', ...ws.map((w) => fmt(countOf(w) / s.windowS, 1)), ''],
      row('server CPU cores', (p) => p.cores, 2),
      row('RSS MB, highest', (p) => p.rssMaxMb, 0, 'RSS MB, highest'),
      row('heap used MB, lowest', (p) => p.heapMinMb, 0, 'heap used MB, lowest'),
      row('heap used MB, highest', (p) => p.heapMaxMb),
      row('event backlog, highest', (p) => p.backlogMax, 0, 'event backlog, highest'),
      row('outbox lag s, highest', (p) => p.lagMaxS, 2),
      row('sagas open, highest', (p) => p.sagasOpenMax),
      row('vacuum and analyze s', (p) => p.maintenanceS, 1),
      ['load generator late ms, highest', ...ws.map((w) => fmt(w.lateMs, 1)), ''],
      ...(ws.some((w) => w.postgres) ? postgresRows(ws) : []),
    ], [false, ...ws.map(() => true), false]))
    const first = ws[0]?.process.tables ?? []
    const lastTables = ws.at(-1)?.process.tables ?? []
    if (lastTables.length > 0) {
      console.log(`\nlargest tables at the end (and after ${long(0)})`)
      console.log(table(['table', 'MB', 'rows', `MB ${short(0)}`, `rows ${short(0)}`],
        lastTables.slice(0, 5).map((t) => {
          const f = first.find((x) => x.table === t.table)
          return [t.table, fmt(t.mb, 1), fmt(t.rows), fmt(f?.mb, 1), fmt(f?.rows)]
        }), [false, true, true, true, true]))
    } else {
      console.log('\nlargest tables: /metrics exports no db_table_bytes')
    }
    console.log(`\nafter the load the event backlog ${run.drainedMs === undefined ? `did NOT drain within ${s.drainTimeoutMs / 1000} s` : `was 0 after ${fmt(run.drainedMs)} ms`}`)
    const k = Math.max(1, Math.floor((ws.length - 1) / 3))
    console.log(`\nverdict: p99 pooled over ${k === 1 ? `${short(1)} against ${short(ws.length - 1)}` : `${short(1)}–${short(k)} against ${short(ws.length - k)}–${short(ws.length - 1)}`}; ` +
      `memory and backlog: the extremes of the same windows`)
    console.log(table(['what', 'early', 'late', 'verdict'], run.verdicts.map((v) => [
      v.what, fmt(v.early, 1), fmt(v.late, 1), v.drift ? 'DRIFT' : v.note ?? 'steady',
    ]), [false, true, true, false]))
    const late = ws.reduce((worst, w) => (w.lateMs > worst.lateMs ? w : worst))
    if (late.lateMs > LATE_NOTE_MS) {
      console.log(`note: the load generator started operations up to ${fmt(late.lateMs)} ms late (${long(late.index)}): its core was busy, and those latencies include it`)
    }
    for (const f of run.failures) console.log(`FAILED: ${f}`)
  }
}

function postgresRows(ws: Window[]): (string | number)[][] {
  const row = (name: string, pick: (p: PgWindow) => number | undefined, digits = 0) => [name, ...ws.map((w) => fmt(w.postgres && pick(w.postgres), digits)), '']
  const waitTypes = [...new Set(ws.flatMap((w) => Object.keys(w.postgres?.waiting ?? {})))].sort()
  return [
    row('postgres cores', (p) => p.cores, 2),
    row('server cores', (p) => p.serverCores, 2),
    row('checkpoints', (p) => p.checkpoints),
    row('WAL MB', (p) => p.walMb),
    row('autovacuums', (p) => p.autovacuums),
    row('autoanalyzes', (p) => p.autoanalyzes),
    row('dead rows', (p) => p.deadRows),
    ...waitTypes.map((t) => row(`backends waiting on ${t}, most`, (p) => p.waiting[t] ?? 0)),
  ]
}
