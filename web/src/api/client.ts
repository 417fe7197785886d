/**
 * HTTP to the platform's public API through the client package (@questline/client, typed by the
 * route schemas): bearer tokens, refresh before expiry (and once more on a 401), and RFC 9457
 * problems turned into ApiError with field messages keyed by field.
 */
import { createQuestlineClient, ProblemError, type Problem } from '@questline/client'
import { now } from '../clock'
import { getSession, reloadSession, setSession, type Session } from './session'

export type { Problem }

/** A refused call, as the screens show it: the problem's sentence, and field messages by field. */
export class ApiError extends ProblemError {
  /** Field messages keyed by field (`title`, `recurrence.dayOfWeek`); see fieldOf. */
  readonly fields: Record<string, string>

  constructor(status: number, p: Partial<Problem>) {
    super(status, p)
    this.message = friendlyDetail(p)
    this.fields = {}
    for (const e of this.errors) {
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
function fieldOf(path: string): string {
  return path.split('/').filter((p) => p && p !== 'body' && p !== 'querystring' && p !== 'params').join('.')
}

/** ajv's wording, as a player would say it. */
function friendlyMessage(m: string): string {
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

/**
 * How the web app's calls go out: JSON accepted, with the session's token (refreshed first when it
 * is about to expire, and once more on a 401). A refusal throws ApiError; a 401 that the session
 * cannot survive ends it (the app shows sign-in). Anonymous calls (register, login) go without.
 */
function sessionFetch(anonymous: boolean) {
  return async (request: Request): Promise<Response> => {
    request.headers.set('accept', 'application/json')
    // Kept unsent for the retry: a request's body can be read once.
    const retry = anonymous ? undefined : request.clone()
    let session = anonymous ? null : await freshSession()
    let res = await send(request, session)
    if (res.status === 401 && session && retry && !(await refusesPassword(res))) {
      // Expired or revoked meanwhile (a sleeping laptop): one refresh, one retry.
      session = await refreshSession(session)
      if (session) res = await send(retry, session)
    }
    if (res.ok) return res
    const data: unknown = (res.headers.get('content-type') ?? '').includes('json') ? await res.json() : undefined
    if (res.status === 401 && !anonymous && !isWrongPassword(data)) {
      setSession(null)
      onSessionLost('Your session has ended. Please sign in again.')
    }
    throw new ApiError(res.status, (data ?? {}) as Partial<Problem>)
  }
}

function send(request: Request, session: Session | null): Promise<Response> {
  if (session) request.headers.set('authorization', `Bearer ${session.token}`)
  return fetch(request)
}

/**
 * A 401 `invalid-credentials` with a token is a password asked again (deleting the account) that
 * was wrong: the session is fine, so it is neither refreshed nor ended.
 */
const isWrongPassword = (data: unknown) => /\/problems\/invalid-credentials$/.test((data as Partial<Problem> | undefined)?.type ?? '')
const refusesPassword = async (res: Response) => isWrongPassword(await res.clone().json().catch(() => undefined))

/** The API as the signed-in player: `api.GET('/api/v1/avatars/{id}', …)`, typed by the route schemas. */
export const api = createQuestlineClient({ baseUrl: '', fetch: sessionFetch(false) })
/** The API without a session: registering, signing in, refreshing. */
export const anonymousApi = createQuestlineClient({ baseUrl: '', fetch: sessionFetch(true) })

/** What a call answered (a refusal has thrown ApiError). */
export const dataOf = <T>(call: Promise<{ data: T }>): Promise<T> => call.then((a) => a.data)
/** Waits for a call whose answer says nothing (204). */
export const completed = (call: Promise<unknown>): Promise<void> => call.then(() => undefined)

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
function refreshSession(stale: Session): Promise<Session | null> {
  refreshing ??= withTabLock(async () => {
    const stored = reloadSession()
    if (!stored) return null
    // Another tab already refreshed: use its tokens.
    if (stored.refreshToken !== stale.refreshToken) return stored
    const refreshed = await dataOf(anonymousApi.POST('/auth/refresh', { body: { refreshToken: stored.refreshToken } })).catch((e: unknown) => {
      if (e instanceof ApiError) return null
      throw e
    })
    if (!refreshed) {
      setSession(null)
      onSessionLost('Your session has ended. Please sign in again.')
      return null
    }
    return setSession(refreshed)
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
