import { setTimeout as sleep } from 'node:timers/promises'
import type { TokenSource } from '../auth/service-token.js'
import { AppError, BadGateway, type FieldError } from '../errors.js'
import { ownerKeyOfPath } from '../ownership/owner-key.js'
import { IDEMPOTENCY_HEADER } from './idempotency.js'
import { problemTypeSlug } from './problem-types.js'

export interface ServiceClientOptions {
  /** Each attempt is abandoned after this long. */
  timeoutMs: number
  /** Further attempts after a network failure, a timeout or a 5xx answer; never after a 4xx. */
  retries: number
  /** The first retry waits this long; each later one twice as long as the one before. */
  retryDelayMs: number
}

const DEFAULT_SERVICE_CLIENT_OPTIONS: ServiceClientOptions = { timeoutMs: 2000, retries: 2, retryDelayMs: 50 }

interface ServiceRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  body?: unknown
  /** Sent as `Idempotency-Key`, so a retried change is applied once. */
  idempotencyKey?: string
}

/**
 * Calls another Questline service's public API with a service token. Answers the JSON body (or
 * undefined for 204). A refusal (4xx problem+json) becomes a platform AppError with the same
 * status and slug, so a caller handles it as it would a local one. A service that cannot be
 * reached or keeps failing (network error, timeout, 5xx after the retries) is a 502: whether a
 * change it was asked for was applied is then unknown, and only a retry with the same
 * idempotency key can tell.
 */
export class ServiceClient {
  private readonly options: ServiceClientOptions

  private readonly baseUrl: (owner: string | undefined, failed: string | undefined) => string

  constructor(
    /**
     * A base URL, or a chooser asked before every attempt (several replicas behind a pool), given
     * the aggregate the path is about (owner-key.ts), so a call reaches that aggregate's owner, and
     * on a retry the URL the attempt before failed at, so it answers another replica.
     */
    baseUrl: string | ((owner?: string, failed?: string) => string),
    private readonly token: TokenSource,
    options: Partial<ServiceClientOptions> = {},
  ) {
    this.options = { ...DEFAULT_SERVICE_CLIENT_OPTIONS, ...options }
    const choose = typeof baseUrl === 'string' ? () => baseUrl : baseUrl
    this.baseUrl = (owner, failed) => choose(owner, failed).replace(/\/+$/, '')
  }

  async call<T>(req: ServiceRequest): Promise<T> {
    const owner = ownerKeyOfPath(req.path)
    let failed: string | undefined
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.options.retries
      const base = this.baseUrl(owner, failed)
      let res: Response
      let text: string
      try {
        res = await fetch(base + req.path, {
          method: req.method,
          headers: await this.headers(req),
          ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
          signal: AbortSignal.timeout(this.options.timeoutMs),
        })
        text = await res.text()
      } catch (e) {
        if (last) throw new BadGateway(`${req.method} ${req.path} failed: ${describe(e)}`, 'upstream-unreachable')
        // Down, draining or too slow: the next attempt goes to another replica.
        failed = base
        await sleep(this.options.retryDelayMs * 2 ** attempt)
        continue
      }
      if (res.status >= 500 && !last) {
        failed = base
        await sleep(this.options.retryDelayMs * 2 ** attempt)
        continue
      }
      // A service still failing after the retries is this call's upstream failing: 502, not a 500
      // that would read as the caller's own fault.
      if (res.status >= 500) throw new BadGateway(`${req.method} ${req.path} answered ${res.status} after ${attempt + 1} attempts.`, 'upstream-error')
      if (res.status >= 400) throw toAppError(res, text, req)
      return (text === '' ? undefined : JSON.parse(text)) as T
    }
  }

  /** As `call`, with a 404 answered as undefined: for lookups where "none" is an answer. */
  async callOrUndefined<T>(req: ServiceRequest): Promise<T | undefined> {
    try {
      return await this.call<T>(req)
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return undefined
      throw e
    }
  }

  private async headers(req: ServiceRequest): Promise<Record<string, string>> {
    return {
      authorization: `Bearer ${await this.token()}`,
      accept: 'application/json, application/problem+json',
      ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(req.idempotencyKey !== undefined ? { [IDEMPOTENCY_HEADER]: req.idempotencyKey } : {}),
    }
  }
}

interface ProblemBody {
  type?: unknown
  title?: unknown
  detail?: unknown
  errors?: unknown
}

/** The remote refusal (4xx) as the same platform error; an answer that is no problem keeps its status. */
function toAppError(res: Response, text: string, req: ServiceRequest): AppError {
  let body: ProblemBody | undefined
  try {
    body = JSON.parse(text) as ProblemBody
  } catch {
    body = undefined
  }
  const slug = problemTypeSlug(body?.type)
  const detail = typeof body?.detail === 'string' ? body.detail : `${req.method} ${req.path} answered ${res.status}.`
  const title = typeof body?.title === 'string' ? body.title : res.statusText || 'Upstream error'
  const errors = Array.isArray(body?.errors) ? (body.errors as FieldError[]) : undefined
  return new AppError(res.status, slug ?? 'upstream-refused', title, detail, errors)
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause
    if (e.name === 'TimeoutError') return 'timed out'
    return cause?.code ?? cause?.message ?? e.message
  }
  return String(e)
}
