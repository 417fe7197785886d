/**
 * `npm run bench`'s report: the ratios, the three tables (throughput, start-up, memory) and the
 * results file. A ratio is ours / floor of the same scenario, engine and run; the battle, which the
 * floor has not, is judged against the floor's one-statement hot earn of the same run (its note
 * also gives it against ours' hot earn, at BENCH_CONNECTIONS and at the battle's connections).
 */
import { mkdir, writeFile } from 'node:fs/promises'
import {
  ATTEND_HABITS, ATTEND_PLAYERS, ATTEND_WARMUP, ATTENDS, BATTLE, BATTLE_STANDING, CONNECTIONS, DURATION, EARN_HOT, EARN_HOT_AT_GUILD, failures,
  GUILD, memory, pinning, PROBES, rows, SPREAD, startUps, STARTUP_RUNS, type Memory, type Row,
} from './api-run.js'
import { fmt, table } from './table.js'

const find = (target: Row['target'], engine: Row['engine'], scenario: string) =>
  rows.find((r) => r.target === target && r.engine === engine && r.scenario === scenario && r.rps !== undefined)

function ratios(): void {
  for (const r of rows) {
    const rps = r.rps
    if (r.target !== 'ours' || rps === undefined) continue
    if (r.scenario === BATTLE || r.scenario === BATTLE_STANDING) {
      const floorEarn = find('floor', r.engine, EARN_HOT)
      if (floorEarn?.rps) {
        r.ratio = rps / floorEarn.rps
        r.ratioOf = "floor's hot earn"
      }
      const others = ([[EARN_HOT, `ours' hot earn`], [EARN_HOT_AT_GUILD, `ours' hot earn at ${GUILD} conn`]] as const).flatMap(([scenario, what]) => {
        const earn = find('ours', r.engine, scenario)
        return earn?.rps ? [`${(rps / earn.rps).toFixed(2)} of ${what}`] : []
      })
      if (others.length > 0) r.note = [r.note, others.join(', ')].filter(Boolean).join('; ')
      continue
    }
    const floor = find('floor', r.engine, r.scenario)
    if (floor?.rps) {
      r.ratio = rps / floor.rps
      r.ratioOf = 'floor'
    }
  }
}

export function printReport(): void {
  ratios()
  console.log(`\nQuestline API benchmark, ours vs the floor — ${CONNECTIONS} connections, ${DURATION} s per throughput scenario; ${pinning.description}\n`)
  console.log(table(
    ['target', 'engine', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'ours/floor', 'non-2xx', 'errors', 'note'],
    rows.map((r) => [
      r.target, r.engine, r.scenario, fmt(r.rps), fmt(r.p50, 1), fmt(r.p99, 1),
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}${r.ratioOf === 'floor' ? '' : ` (vs ${r.ratioOf})`}`,
      r.non2xx ? fmt(r.non2xx) : '', r.errors ? fmt(r.errors) : '', r.note ?? '',
    ]),
    [false, false, false, true, true, true, true, true, true, false],
  ))
  if (startUps.length > 0) {
    console.log(`\nStart-up, spawn → first 200 from /healthz (${STARTUP_RUNS} runs, median)\n`)
    console.log(table(['engine', 'what', 'median ms', 'runs ms'], startUps.map((s) => [s.engine, s.what, fmt(s.medianMs), s.note ?? s.runsMs.join(', ')]), [false, false, true, false]))
  }
  if (memory.length > 0) {
    const bare = (dataDir: Memory['dataDir']) => memory.find((m) => m.process === 'bare PGlite' && m.dataDir === dataDir)?.idleMb
    console.log('\nMemory, RSS in MB (idle: a second after start; load: highest during the compared scenarios; bare PGlite: after a few queries)\n')
    console.log(table(['process', 'engine', 'measured', 'data dir', 'idle', 'load', 'ours − bare PGlite (idle / load)'], memory.map((m) => {
      const b = m.process === 'ours' && m.engine === 'embedded' ? bare(m.dataDir) : undefined
      const share = b === undefined ? '' : `${fmt((m.idleMb ?? NaN) - b)}${m.loadMb === undefined ? '' : ` / ${fmt(m.loadMb - b)}`}`
      return [m.process, m.engine, m.measured, m.dataDir, fmt(m.idleMb), fmt(m.loadMb), share]
    }), [false, false, false, false, true, true, false]))
  }
}

/** Everything the run recorded, to bench/results/api-<time>.json; answers the file's path. */
export async function writeResults(): Promise<string> {
  await mkdir('bench/results', { recursive: true })
  const file = `bench/results/api-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
  await writeFile(file, JSON.stringify({
    settings: {
      connections: CONNECTIONS, duration: DURATION, spread: SPREAD, attendPlayers: ATTEND_PLAYERS, attendHabits: ATTEND_HABITS, attends: ATTENDS,
      attendWarmUp: ATTEND_WARMUP, probes: PROBES, guild: GUILD, startupRuns: STARTUP_RUNS, only: process.env.BENCH_ONLY ?? null, pinning: pinning.description,
    },
    failures, rows, startUps, memory,
  }, null, 2))
  return file
}
