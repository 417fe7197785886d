import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'

export interface LoadResult {
  requests: number
  rps: number
  p50: number
  p99: number
  non2xx: number
  errors: number
}

/** What one request of a varied load goes to: its path, and headers added to the spec's. */
export interface Target {
  path: string
  headers?: Record<string, string>
}

export interface LoadSpec {
  url: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  connections: number
  /** Seconds; or a fixed number of requests with `amount`. */
  duration?: number
  amount?: number
  /** Per-request paths, taken in turn (each used once with `amount`). */
  paths?: string[]
  /** Per-request path and headers, taken in turn (each used once with `amount`); instead of `paths`. */
  targets?: Target[]
}

export async function load(spec: LoadSpec): Promise<LoadResult> {
  const targets: Target[] | undefined = spec.targets ?? spec.paths?.map((path) => ({ path }))
  if (spec.amount) return loadAmount(spec, spec.amount, targets)
  let next = 0
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.duration ?? 10,
    requests: [{
      method: spec.method ?? 'GET',
      headers: spec.headers ?? {},
      ...(spec.body ? { body: spec.body } : {}),
      ...(targets ? {
        setupRequest: (req: autocannon.Request) => {
          const t = targets[next++ % targets.length]!
          return { ...req, path: t.path, headers: { ...req.headers, ...t.headers } }
        },
      } : {}),
    }],
  })
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

export const median = (values: number[]): number => percentile([...values].sort((a, b) => a - b), 50)

/**
 * A fixed number of requests, `connections` at a time over keep-alive sockets, timed from the
 * first request to the last answer. Not autocannon: with `amount` it ends only at its next whole
 * second, which made every short burst look slower than it was (300 requests: ≥ 1 s).
 */
async function loadAmount(spec: LoadSpec, amount: number, targets: Target[] | undefined): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections })
  const base = new URL(spec.url)
  const latencies: number[] = []
  let next = 0
  let non2xx = 0
  let errors = 0
  const once = (i: number) => new Promise<void>((resolve) => {
    const t = targets?.[i % targets.length]
    const started = performance.now()
    const req = request({
      agent, host: base.hostname, port: base.port, method: spec.method ?? 'GET',
      path: t?.path ?? (base.pathname + base.search), headers: { ...spec.headers, ...t?.headers },
    }, (res) => {
      res.resume()
      res.on('end', () => {
        latencies.push(performance.now() - started)
        if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++
        resolve()
      })
    })
    req.on('error', () => {
      errors++
      resolve()
    })
    req.end(spec.body)
  })
  const worker = async () => {
    for (let i = next++; i < amount; i = next++) await once(i)
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: Math.min(spec.connections, amount) }, worker))
  const seconds = (performance.now() - t0) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const ms = (v: number) => Math.round(v * 10) / 10
  return { requests: latencies.length, rps: latencies.length / seconds, p50: ms(percentile(latencies, 50)), p99: ms(percentile(latencies, 99)), non2xx, errors }
}
