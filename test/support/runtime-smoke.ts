/**
 * The smoke a shipped Questline must pass, over HTTP alone (no vitest, no sources): a runtime tree
 * served by node (test/runtime-tree.test.ts) or the image run in a container (`npm run image:smoke`).
 * A player registers, makes a habit, attends it and is rewarded; the web app is at `/`, the API
 * docs at `/docs` with their assets; a server started again on the same data still knows the player
 * (logs them in, their reward kept). Each step that fails throws, saying what it got.
 */
import { randomUUID } from 'node:crypto'
import { eventually } from './eventually.js'

export async function json(url: string, init: RequestInit & { token?: string; key?: string; body?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (init.token) headers.authorization = `Bearer ${init.token}`
  if (init.key) headers['idempotency-key'] = init.key
  const res = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(10_000) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

/**
 * Asks `url`/readyz until it answers 200. `exited` says why the server is gone (it exited: its
 * output) or undefined while it runs, so a server that died is reported at once, not at the deadline.
 */
export async function waitUntilReady(url: string, { withinMs, exited }: { withinMs: number; exited: () => string | undefined | Promise<string | undefined> }): Promise<void> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const gone = await exited()
    if (gone !== undefined) throw new Error(`the server exited before it was ready: ${gone}`)
    const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false)
    if (ready) return
    if (Date.now() > deadline) throw new Error(`the server was not ready within ${withinMs / 1000} s`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

function expectStatus(what: string, answer: { status: number; body?: unknown }, status: number): void {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status}, not ${status}: ${JSON.stringify(answer.body)}`)
}

export interface Avatar { money: { amount: number }; level: { levelNumber: number; currentExperience: number } }

/** Experience as one rising number: the level first, then the experience within it. */
const experienceOf = (a: Avatar) => a.level.levelNumber * 1_000_000 + a.level.currentExperience

/** Who played: enough to log in again and find their avatar. */
export interface SmokePlayer { email: string; password: string; userId: string }

async function readAvatar(base: string, userId: string, token: string): Promise<Avatar> {
  const avatar = await json(`${base}/api/v1/avatars/${userId}`, { token })
  expectStatus('GET /api/v1/avatars/{id}', avatar, 200)
  return avatar.body as unknown as Avatar
}

/** Register → habit → attend → reward: answers the player and their avatar before and after its reward. */
export async function playOneHabit(base: string): Promise<{ player: SmokePlayer; before: Avatar; after: Avatar }> {
  const player = { email: `smoke-${randomUUID()}@example.com`, password: 'smoke test password', userId: '' }
  const registered = await json(`${base}/auth/register`, { method: 'POST', body: JSON.stringify({ name: 'Smoke', email: player.email, password: player.password }) })
  expectStatus('POST /auth/register', registered, 200)
  const { token, userId } = registered.body as { token: string; userId: string }
  player.userId = userId
  const before = await readAvatar(base, userId, token)

  const habit = await json(`${base}/api/v1/habits`, { method: 'POST', token, body: JSON.stringify({ avatarId: userId, title: 'Read 20 pages', recurrenceType: 'DAILY' }) })
  expectStatus('POST /api/v1/habits', habit, 200)
  const { id: habitId, timeZone } = habit.body as { id: string; timeZone: string }
  // The wall clock in the habit's zone, as the API writes local date-times (2026-11-25T07:30:00).
  const localNow = new Date().toLocaleString('sv-SE', { timeZone }).replace(' ', 'T')
  const attended = await json(`${base}/api/v1/habits/${habitId}/attend`, { method: 'POST', token, body: JSON.stringify({ date: localNow }) })
  expectStatus('POST /api/v1/habits/{id}/attend', attended, 204)

  // The reward is paid by event, after the attend answered.
  const after = await eventually('the avatar rewarded for the attended habit (more money and experience)', async () => {
    const now = await readAvatar(base, userId, token)
    return now.money.amount > before.money.amount && experienceOf(now) > experienceOf(before) ? now : undefined
  }, { withinMs: 15_000, everyMs: 100 })
  return { player, before, after }
}

/** The player logs in (200) and finds their avatar with at least the reward `after` showed. */
export async function expectPlayerKnown(base: string, player: SmokePlayer, after: Avatar): Promise<void> {
  const login = await json(`${base}/auth/login`, { method: 'POST', body: JSON.stringify({ email: player.email, password: player.password }) })
  expectStatus('POST /auth/login', login, 200)
  const now = await readAvatar(base, player.userId, (login.body as { token: string }).token)
  if (now.money.amount < after.money.amount || experienceOf(now) < experienceOf(after)) {
    throw new Error(`the avatar lost its reward: ${JSON.stringify(now)}, not at least ${JSON.stringify(after)}`)
  }
}

async function expectPage(url: string, type: string, marker?: string): Promise<void> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) })
  const text = await res.text()
  const contentType = res.headers.get('content-type') ?? ''
  if (res.status !== 200 || !contentType.startsWith(type) || (marker !== undefined && !text.includes(marker))) {
    throw new Error(`GET ${url}: ${res.status} ${contentType}, not 200 ${type}${marker ? ` holding ${marker}` : ''}: ${text.slice(0, 200)}`)
  }
}

/** The web app's page at `/`, and the API docs at `/docs` with their script (a file of the Swagger UI package). */
export async function expectWebAppAndDocs(base: string): Promise<void> {
  await expectPage(`${base}/`, 'text/html', '<div id="root"></div>')
  await expectPage(`${base}/docs`, 'text/html', 'swagger-ui-bundle.js')
  await expectPage(`${base}/docs/static/swagger-ui-bundle.js`, 'application/javascript')
}

/** The whole smoke against a ready platform at `base`; answers who played and their rewarded avatar. */
export async function smokeTest(base: string): Promise<{ player: SmokePlayer; after: Avatar }> {
  const { player, after } = await playOneHabit(base)
  await expectWebAppAndDocs(base)
  return { player, after }
}
