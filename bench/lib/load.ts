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
  let next = 0
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    ...(spec.amount ? { amount: spec.amount } : { duration: spec.duration ?? 10 }),
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
    // A fixed amount rarely fills whole seconds, so its rate is total over elapsed time.
    rps: spec.amount ? result.requests.total / result.duration : result.requests.average,
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
