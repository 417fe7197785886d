/** Resident memory of a process, from /proc (Linux). */
import { readFile } from 'node:fs/promises'

/** VmRSS in MB, or undefined when the process is gone or /proc is not there. */
export async function rssMb(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined)
  const kb = status?.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]
  return kb === undefined ? undefined : Math.round(Number(kb) / 1024)
}

/** Samples a process's RSS every `everyMs` until stopped; answers the highest seen. */
export function sampleRss(pid: number, everyMs = 100): { stop(): Promise<number | undefined> } {
  let max: number | undefined
  const sample = async () => {
    const mb = await rssMb(pid)
    if (mb !== undefined) max = Math.max(max ?? 0, mb)
  }
  void sample()
  const timer = setInterval(() => void sample(), everyMs)
  return {
    async stop() {
      clearInterval(timer)
      await sample()
      return max
    },
  }
}
