/** CPU time of processes, from /proc (Linux): what a bench's server or database spent per window. */
import { readdir, readFile } from 'node:fs/promises'

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
export const TICKS_PER_S = 100

/** utime + stime of the processes `picked` by name and pid; undefined where /proc is not there. */
export async function cpuTicks(picked: (name: string, pid: string) => boolean): Promise<number | undefined> {
  const pids = await readdir('/proc').catch(() => undefined)
  if (!pids) return undefined
  let ticks = 0
  for (const pid of pids.filter((p) => /^\d+$/.test(p))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
    const close = stat.lastIndexOf(')')
    if (close < 0 || !picked(stat.slice(stat.indexOf('(') + 1, close), pid)) continue
    const fields = stat.slice(close + 2).split(' ')
    // After the name: state is field 3, utime 14 and stime 15 (1-based over the whole line).
    ticks += Number(fields[11]) + Number(fields[12])
  }
  return ticks
}

/** utime + stime of one process in ticks, or undefined when it is gone. */
export async function processTicks(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined)
  const close = stat?.lastIndexOf(')') ?? -1
  if (!stat || close < 0) return undefined
  const fields = stat.slice(close + 2).split(' ')
  return Number(fields[11]) + Number(fields[12])
}

/** Cores used between two tick readings `seconds` apart (1 = one core busy throughout). */
export const coresBetween = (from: number | undefined, to: number | undefined, seconds: number): number | undefined =>
  from === undefined || to === undefined || seconds <= 0 ? undefined : (to - from) / TICKS_PER_S / seconds
