/**
 * Start-up and idle memory for `npm run bench`: on an existing data directory (or database), a
 * first start that makes and migrates it, then BENCH_STARTUP_RUNS timed starts, spawn → first 200
 * from /healthz (with the RSS of each a second later), then the same steps timed one by one in
 * one process (bench/startup-phases.ts). Embedded also: `npm start`, and a bare PGlite process
 * (bench/bare-pglite.ts) on that data dir, for memory.
 */
import path from 'node:path'
import { loadPackagesScript } from './dependencies.js'
import { median } from './load.js'
import { nodeCommand } from './processes.js'
import { timeRun, timeStartUp } from './startup.js'
import { memory, OURS, serverCpus, startUps, step, STARTUP_RUNS, type Engine, type StartUpFigure } from './api-run.js'

const serve = (env: Record<string, string>) => {
  const [command, args] = nodeCommand(OURS, ['serve'], serverCpus)
  return timeStartUp(command, args, { LOG_LEVEL: 'warn', ...env }, { measureRss: true })
}

const pinned = (command: string[]): [string, string[]] => serverCpus ? ['taskset', ['-c', serverCpus, ...command]] : [command[0]!, command.slice(1)]
/** A TypeScript script under node and tsx, pinned to the servers' core. */
export const tsxNode = (...args: string[]) => pinned([process.execPath, '--import', 'tsx', ...args])

async function repeat<T>(n: number, run: () => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < n; i++) out.push(await run())
  return out
}

const figure = (what: string, engine: Engine, runsMs: number[], note?: string): StartUpFigure =>
  ({ what, engine, runsMs, medianMs: runsMs.length ? median(runsMs) : undefined, ...(note ? { note } : {}) })

/** Start-up of ours on `env`'s data; leaves the data in place for the throughput scenarios. */
export async function startUp(engine: Engine, env: Record<string, string>): Promise<void> {
  step(`start-up ${engine}: a first start, ${STARTUP_RUNS} timed starts, one in-process breakdown`)
  const first = await serve(env)
  startUps.push(figure(engine === 'embedded' ? 'first start, fresh data dir (initdb + migrations)' : 'first start, fresh database (migrations)', engine, [first.ms]))
  const runs = await repeat(STARTUP_RUNS, () => serve(env))
  startUps.push(figure(`node ${OURS} serve → /healthz 200`, engine, runs.map((r) => r.ms)))
  memory.push({ process: 'ours', engine, measured: 'start-up runs', dataDir: 'existing', idleMb: median(runs.map((r) => r.rssMb ?? NaN)) })

  // One run: it says where the time goes; the timed starts above are the figure.
  const phases = JSON.parse((await timeRun(...tsxNode('bench/startup-phases.ts'), { LOG_LEVEL: 'warn', ...env })).lastLine) as Record<string, number>
  for (const [phase, ms] of Object.entries(phases)) {
    startUps.push(figure(phase === 'total' ? '  the same steps in one process, total' : `  of which: ${phase}`, engine, [ms]))
  }
  if (engine === 'embedded') {
    const plain = JSON.parse((await timeRun(...pinned([process.execPath, '--input-type=module', '-e', loadPackagesScript()]))).lastLine) as { ms: number }
    startUps.push(figure('  (compare: the same dependencies in plain node, no tsx)', engine, [plain.ms]))
  }
}

/** The embedded extras: the bare PGlite process on the platform's data dir, and `npm start` (the built bundle). */
export async function startUpEmbeddedExtras(dataDir: string): Promise<void> {
  const bare = await barePglite(path.join(dataDir, 'pgdata'))
  memory.push({ process: 'bare PGlite', engine: 'embedded', measured: 'bare process', dataDir: 'existing', idleMb: bare.rssMb })
  const [npm, args] = pinned(['npm', 'start', '--silent'])
  const npmRuns = await repeat(STARTUP_RUNS, () => timeStartUp(npm, args, { LOG_LEVEL: 'warn', DATA_DIR: dataDir }))
  startUps.push(figure('npm start → /healthz 200', 'embedded', npmRuns.map((r) => r.ms)))
}

/** A bare PGlite process on `dataDir` (made when missing): its RSS after a few queries. */
export async function barePglite(dataDir: string): Promise<{ rssMb: number }> {
  return JSON.parse((await timeRun(...tsxNode('bench/bare-pglite.ts', dataDir))).lastLine) as { rssMb: number }
}
