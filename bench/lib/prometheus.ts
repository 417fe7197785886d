/** Reading a server's /metrics (Prometheus text format) in a bench. */

export interface Sample {
  labels: Record<string, string>
  value: number
}

/** Every sample of the exposition, by metric name (comments and blank lines skipped). */
export function parseMetrics(text: string): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!
    const samples = out.get(m[1]!) ?? []
    samples.push({ labels, value: Number(m[3]) })
    out.set(m[1]!, samples)
  }
  return out
}

export async function scrapeMetrics(base: string): Promise<Map<string, Sample[]>> {
  const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) })
  if (!res.ok) throw new Error(`GET /metrics: ${res.status}`)
  return parseMetrics(await res.text())
}

/** The sum of a metric's samples; undefined when the process does not export it. */
export function sumOf(metrics: Map<string, Sample[]>, name: string): number | undefined {
  const samples = metrics.get(name)
  return samples && samples.reduce((sum, s) => sum + s.value, 0)
}

/** The highest of a metric's samples (0 when it has none); undefined when not exported. */
export function maxOf(metrics: Map<string, Sample[]>, name: string): number | undefined {
  const samples = metrics.get(name)
  return samples && samples.reduce((max, s) => Math.max(max, s.value), 0)
}
