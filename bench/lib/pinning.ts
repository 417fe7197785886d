/**
 * One core for the servers, the other for the load generator (BENCH_PIN=false turns it off).
 * The bench pins itself, every thread, to the client core; servers are spawned under
 * `taskset -c <server core>`. PostgreSQL itself is not pinned: it runs where the kernel puts it.
 */
import { execFileSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

export const CLIENT_CPU = '0'
export const SERVER_CPU = '1'

export interface Pinning {
  /** The CPU list servers run on, or undefined when nothing is pinned. */
  serverCpus: string | undefined
  /** What the table header says about it. */
  description: string
}

export function pinCores(): Pinning {
  if (process.env.BENCH_PIN === 'false') return { serverCpus: undefined, description: 'not pinned (BENCH_PIN=false): client and servers share the cores' }
  if (availableParallelism() < 2) return { serverCpus: undefined, description: 'not pinned: fewer than 2 cores' }
  try {
    execFileSync('taskset', ['-a', '-p', '-c', CLIENT_CPU, String(process.pid)], { stdio: 'ignore' })
  } catch (e) {
    console.warn(`taskset failed (${(e as Error).message}); running unpinned`)
    return { serverCpus: undefined, description: 'not pinned: taskset failed' }
  }
  return { serverCpus: SERVER_CPU, description: `servers pinned to core ${SERVER_CPU}, load generator to core ${CLIENT_CPU} (PostgreSQL unpinned)` }
}
