/**
 * HTTP to the platform's public API: bearer tokens, refresh before expiry (and once more on a
 * 401), and RFC 9457 problems turned into ApiError with field messages keyed by field.
 */
import { now } from '../clock'
import type { components } from './schema'
import { getSession, reloadSession, setSession, type Session, type SessionAnswer } from './session'

/** RFC 9457 problem details, as every refusal is answered. */
export type Problem = components['schemas']['Problem']

export class ApiError extends Error {
  readonly status: number
  readonly type: string
  readonly title: string
  /** The problem's own sentence (`A vacation lasts at most 90 days.`), when it has one. */
  readonly detail: string | undefined
  /** Field messages keyed by field (`title`, `recurrence.dayOfWeek`); see fieldOf. */
  readonly fields: Record<string, string>

  constructor(status: number, p: Partial<Problem>) {
    super(friendlyDetail(p))
    this.status = status
    this.type = p.type ?? 'about:blank'
    this.title = p.title ?? `HTTP ${status}`
    this.detail = p.detail || undefined
    this.fields = {}
    for (const e of p.errors ?? []) {
      const key = fieldOf(e.path)
      this.fields[key] ??= friendlyMessage(e.message)
    }
  }

  /** The problem's slug: `/problems/insufficient-funds` → `insufficient-funds`. */
  get slug(): string {
    return this.type.replace(/^.*\/problems\//, '')
  }
}

/** `body/recurrence/dayOfWeek` or `/name` → `recurrence.dayOfWeek`, `name`. */
export function fieldOf(path: string): string {
  return path.split('/').filter((p) => p && p !== 'body' && p !== 'querystring' && p !== 'params').join('.')
}

/** ajv's wording, as a player would say it. */
export function friendlyMessage(m: string): string {
  let r: RegExpMatchArray | null
  if (m === 'is required' || m === 'must match pattern "\\S"') return 'Required.'
  if ((r = m.match(/^must NOT have fewer than (\d+) characters$/))) return r[1] === '1' ? 'Required.' : `At least ${r[1]} characters.`
  if ((r = m.match(/^must NOT have more than (\d+) characters$/))) return `At most ${r[1]} characters.`
  if (m === 'must match format "email"') return 'Enter an email address like name@example.com.'
  if ((r = m.match(/^must be >= (\d+)$/))) return `At least ${r[1]}.`
  if ((r = m.match(/^must be <= (\d+)$/))) return `At most ${r[1]}.`
  if (m === 'must be integer') return 'A whole number.'
  return m.charAt(0).toUpperCase() + m.slice(1) + (m.endsWith('.') ? '' : '.')
}

function friendlyDetail(p: Partial<Problem>): string {
  if (p.errors?.length) return 'Please correct the marked fields.'
  return p.detail || p.title || 'Something went wrong.'
}

export interface Answer<T> {
  status: number
  data: T
  headers: Headers
}

interface Options {
  /** Sent as JSON; a Blob (a file) as it is, with its type. */
  body?: unknown
  /** Send without a token (register, login, refresh). */
  anonymous?: boolean
  signal?: AbortSignal
}

/** Called when the session could not be kept alive (refresh refused): the app shows sign-in. */
let onSessionLost: (reason: string) => void = () => {}
export const whenSessionLost = (f: (reason: string) => void) => {
  onSessionLost = f
}
/** Signs out here without asking the server (the account is gone): the sign-in page says `reason`. */
export function endSession(reason: string): void {
  setSession(null)
  onSessionLost(reason)
}

export async function request<T = unknown>(method: string, path: string, opts: Options = {}): Promise<Answer<T>> {
  let session = opts.anonymous ? null : await freshSession()
  let res = await send(method, path, opts, session)
  if (res.status === 401 && session && !opts.anonymous && !(await refusesPassword(res))) {
    // Expired or revoked meanwhile (a sleeping laptop): one refresh, one retry.
    session = await refreshSession(session)
    if (session) res = await send(method, path, opts, session)
  }
  const type = res.headers.get('content-type') ?? ''
  const data = type.includes('json') ? await res.json() : undefined
  if (!res.ok) {
    if (res.status === 401 && !opts.anonymous && !isWrongPassword(data)) {
      setSession(null)
      onSessionLost('Your session has ended. Please sign in again.')
    }
    throw new ApiError(res.status, (data ?? {}) as Partial<Problem>)
  }
  return { status: res.status, data: data as T, headers: res.headers }
}

/**
 * A 401 `invalid-credentials` with a token is a password asked again (deleting the account) that
 * was wrong: the session is fine, so it is neither refreshed nor ended.
 */
const isWrongPassword = (data: unknown) => /\/problems\/invalid-credentials$/.test((data as Partial<Problem> | undefined)?.type ?? '')
const refusesPassword = async (res: Response) => isWrongPassword(await res.clone().json().catch(() => undefined))

function send(method: string, path: string, opts: Options, session: Session | null): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' }
  // A file goes as it is, with its own type; anything else as JSON.
  if (opts.body instanceof Blob) headers['content-type'] = opts.body.type || 'application/octet-stream'
  else if (opts.body !== undefined) headers['content-type'] = 'application/json'
  if (session) headers.authorization = `Bearer ${session.token}`
  return fetch(path, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: opts.body instanceof Blob ? opts.body : JSON.stringify(opts.body) } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  })
}

export const get = <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, signal ? { signal } : {}).then((a) => a.data)
export const post = <T = void>(path: string, body?: unknown) => request<T>('POST', path, body === undefined ? {} : { body }).then((a) => a.data)
export const patch = (path: string, body: unknown) => request('PATCH', path, { body }).then(() => undefined)
export const del = (path: string, body?: unknown) => request('DELETE', path, body === undefined ? {} : { body }).then(() => undefined)

// ---- tokens ----

/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 60_000
let refreshing: Promise<Session | null> | null = null

/** The session, refreshed first when its access token is about to expire. */
async function freshSession(): Promise<Session | null> {
  const s = getSession()
  if (!s) return null
  return s.expiresAt - now() < REFRESH_MARGIN_MS ? refreshSession(s) : s
}

/**
 * Trades the refresh token for a new pair, once at a time across this page and other tabs (a
 * refresh token is spent on use, and showing a spent one again ends the whole session).
 */
export function refreshSession(stale: Session): Promise<Session | null> {
  refreshing ??= withTabLock(async () => {
    const stored = reloadSession()
    if (!stored) return null
    // Another tab already refreshed: use its tokens.
    if (stored.refreshToken !== stale.refreshToken) return stored
    const res = await fetch('/auth/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ refreshToken: stored.refreshToken }),
    })
    if (!res.ok) {
      setSession(null)
      onSessionLost('Your session has ended. Please sign in again.')
      return null
    }
    return setSession((await res.json()) as SessionAnswer)
  }).finally(() => {
    refreshing = null
  })
  return refreshing
}

function withTabLock<T>(f: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks
  return locks ? (locks.request('questline-refresh', f) as Promise<T>) : f()
}

let timer: ReturnType<typeof setTimeout> | undefined

/** Keeps the access token fresh while the page is open: refreshes a minute before it expires. */
export function scheduleRefresh(): void {
  clearTimeout(timer)
  const s = getSession()
  if (!s) return
  const wait = Math.max(1_000, s.expiresAt - now() - REFRESH_MARGIN_MS)
  timer = setTimeout(() => {
    const current = getSession()
    if (current) void refreshSession(current).then(() => scheduleRefresh())
  }, Math.min(wait, 2 ** 31 - 1))
}
