/**
 * The compared scenarios of `npm run bench`: ours and the floor both running (each idle but for the
 * load sent to it), every scenario alternating between them in BENCH_ROUNDS rounds, so a drift of
 * the shared machine's speed falls on both alike. Figures: mean req/s (attends/s end to end),
 * median p50/p99; the ours row's note gives each round's ratio. RSS is sampled throughout.
 */
import { floorAttendTarget, measureAttendsByPlayers, type AttendTarget } from './attends.js'
import { spreadIds } from './bench-avatars.js'
import { load, median, type LoadResult, type LoadSpec, type Target } from './load.js'
import { rssMb, sampleRss } from './memory.js'
import type { Started } from './processes.js'
import {
  ATTEND_HABITS, ATTENDS_BY_PLAYERS, attempt, CONNECTIONS, EARN_HOT, EARN_SPREAD, earnBody, GET, json, memory, ROUND_SECONDS, ROUNDS, rows,
  selected, SPREAD, step, WARMUP, type Engine, type Memory, type Row,
} from './api-run.js'
import { fmt } from './table.js'

/** A target of the compared scenarios: its process and what each scenario sends it. */
export interface Side {
  target: Row['target']
  pid: number
  idleMb: number | undefined
  dataDir: Memory['dataDir']
  get?: LoadSpec
  earn?: LoadSpec
  spread?: LoadSpec | undefined
  attends?: AttendTarget | undefined
}

/** What one round of a scenario gave for one target. */
interface Round extends LoadResult {
  /** The attends: from the first request until every reward was visible, and the requests' own rate. */
  elapsedMs?: number
  requestsRps?: number
}

/** The floor's side: the same hot and spread avatar ids as ours, and the attend players' avatar ids when there are any. */
export async function floorSide(engine: Engine, server: Started, hotId: string, fresh: boolean, attendAvatarIds: string[]): Promise<Side> {
  const base = server.url
  await new Promise((r) => setTimeout(r, 1_000))
  const targets: Target[] = spreadIds(SPREAD).map((id) => ({ path: `/avatars/${id}/earn` }))
  return {
    target: 'floor', pid: server.pid, idleMb: await rssMb(server.pid), dataDir: fresh ? 'fresh' : 'existing',
    get: { url: `${base}/avatars/${hotId}`, connections: CONNECTIONS },
    earn: { url: `${base}/avatars/${hotId}/earn`, headers: json, ...earnBody, connections: CONNECTIONS },
    spread: SPREAD > 0 ? { url: base, headers: json, targets, ...earnBody, connections: CONNECTIONS } : undefined,
    attends: attendAvatarIds.length > 0 ? floorAttendTarget(base, attendAvatarIds) : undefined,
  }
}

/** Unrecorded load first (WARMUP s of each), so neither side is measured while V8 and PGlite's wasm still compile hot paths. */
async function warmUp(...specs: LoadSpec[]): Promise<void> {
  if (WARMUP <= 0) return
  for (const spec of specs) await load({ ...spec, duration: WARMUP })
}

/** Rounds of one scenario, ours and the floor taking turns within each. */
async function inRounds(engine: Engine, name: string, sides: Side[], run: (side: Side) => (() => Promise<Round>) | undefined): Promise<Map<Side, Round[]>> {
  const runs = new Map<Side, Round[]>()
  for (let round = 1; round <= ROUNDS; round++) {
    for (const side of sides) {
      const once = run(side)
      if (!once) continue
      step(`${side.target} ${engine}: ${name}, round ${round} of ${ROUNDS}`)
      const result = await attempt(`${side.target} ${engine}: ${name}`, once)
      if (result) runs.set(side, [...(runs.get(side) ?? []), result])
    }
  }
  return runs
}

/** One row per target: mean rate, median latencies; ours' note gives each round's ratio. */
function record(engine: Engine, name: string, runs: Map<Side, Round[]>, ours: Side, floor: Side | undefined, note: (side: Side, results: Round[]) => string): void {
  const oursRuns = runs.get(ours) ?? []
  const floorRuns = (floor && runs.get(floor)) || []
  const perRound = oursRuns.length === floorRuns.length && floorRuns.length > 0 ? oursRuns.map((r, i) => (r.rps / floorRuns[i]!.rps).toFixed(2)).join(', ') : ''
  for (const [side, results] of runs) {
    const notes = [note(side, results), side === ours && perRound ? `ours/floor by round ${perRound}` : ''].filter(Boolean)
    rows.push({
      target: side.target, engine, scenario: name,
      requests: results.reduce((sum, r) => sum + r.requests, 0), rps: results.reduce((sum, r) => sum + r.rps, 0) / results.length,
      p50: median(results.map((r) => r.p50)), p99: median(results.map((r) => r.p99)),
      non2xx: results.reduce((sum, r) => sum + r.non2xx, 0), errors: results.reduce((sum, r) => sum + r.errors, 0),
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    })
  }
}

/** GET, hot earn, spread earn and attends by many players, as BENCH_ONLY selects them; RSS sampled throughout. */
export async function compareSideBySide(engine: Engine, ours: Side, floor: Side | undefined): Promise<void> {
  const sides = floor ? [ours, floor] : [ours]
  const samplers = sides.map((side) => sampleRss(side.pid))
  const timed = ([[GET, 'get', (s: Side) => s.get], [EARN_HOT, 'earn', (s: Side) => s.earn], [EARN_SPREAD, 'spread', (s: Side) => s.spread]] as const)
    .filter(([, key]) => selected(key))
  if (timed.length > 0) await warmUp(...sides.flatMap((s) => [s.get, s.earn]).filter((spec) => spec !== undefined))
  for (const [name, , pick] of timed) {
    const runs = await inRounds(engine, name, sides, (side) => {
      const spec = pick(side)
      return spec && (() => load({ ...spec, duration: ROUND_SECONDS }))
    })
    record(engine, name, runs, ours, floor, (side, results) => side === ours && floor ? `${results.length} rounds of ${ROUND_SECONDS} s` : '')
  }
  if (selected('attends') && ours.attends) await compareAttends(engine, sides, ours, floor)
  for (const [i, side] of sides.entries()) {
    memory.push({ process: side.target, engine, measured: 'scenarios', dataDir: side.dataDir, idleMb: side.idleMb, loadMb: await samplers[i]!.stop() })
  }
}

/** Attends by many players: fresh habits each round (made before the clock starts), timed until every reward is visible. */
async function compareAttends(engine: Engine, sides: Side[], ours: Side, floor: Side | undefined): Promise<void> {
  const attending = sides.filter((s) => s.attends)
  // One attend per player on each side first, unrecorded and timed alike: the attend path is new to both.
  if (WARMUP > 0) {
    for (const side of attending) {
      step(`${side.target} ${engine}: attends warm-up (one per player)`)
      await attempt(`${side.target} ${engine}: attends warm-up`, () => measureAttendsByPlayers(side.attends!, 1, CONNECTIONS))
    }
  }
  const runs = await inRounds(engine, ATTENDS_BY_PLAYERS, attending, (side) => async () => {
    const e2e = await measureAttendsByPlayers(side.attends!, ATTEND_HABITS, CONNECTIONS)
    return { requests: e2e.requests.requests, rps: e2e.perSecond, p50: e2e.requests.p50, p99: e2e.requests.p99, non2xx: 0, errors: 0, elapsedMs: e2e.elapsedMs, requestsRps: e2e.requests.rps }
  })
  record(engine, ATTENDS_BY_PLAYERS, runs, ours, floor, (_side, results) =>
    `every reward visible after ${results.map((r) => fmt(r.elapsedMs)).join(', ')} ms; the requests alone ${results.map((r) => fmt(r.requestsRps)).join(', ')}/s (by round)`)
}
