/**
 * Sends the avatar's queued check-ins through the bulk endpoint, at most one tab at a time (a Web
 * Lock): a tab that waited for the lock finds the queue already emptied by the other. The keys make
 * a second sending harmless anyway (the server answers a replayed key's first result).
 */
import { ApiError } from '../api/client'
import { attendInBulk } from '../api/game'
import { getSession } from '../api/session'
import { putQueued, queuedFor, removeQueued, type QueuedAttend } from './outbox-store'
import { refusalText } from './refusals'

/** The bulk endpoint's limit on items per request (BULK_ATTENDS_MAX). */
const BATCH = 100
const LOCK = 'questline-outbox'

export interface Sent {
  applied: QueuedAttend[]
  refused: QueuedAttend[]
}

/** Runs `f` holding the outbox lock of this origin (or at once where the browser has no Web Locks). */
function withOutboxLock<T>(f: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks
  return locks ? (locks.request(LOCK, f) as Promise<T>) : f()
}

/**
 * Sends what waits, oldest first. Applied items (204, or a replayed key's success) leave the queue;
 * refused ones stay with the reason until dismissed; the rest (no network, a server in trouble)
 * wait for the next try. Only the signed-in avatar's own queue goes up.
 */
export function sendQueued(avatarId: string): Promise<Sent> {
  return withOutboxLock(async () => {
    const sent: Sent = { applied: [], refused: [] }
    if (getSession()?.userId !== avatarId) return sent
    const waiting = (await queuedFor(avatarId)).filter((a) => !a.refusal)
    for (let i = 0; i < waiting.length; i += BATCH) {
      const batch = waiting.slice(i, i + BATCH)
      const answered = await sendBatch(avatarId, batch)
      if (!answered) break
      await removeQueued(answered.applied.map((a) => a.key))
      for (const a of answered.refused) await putQueued(a)
      sent.applied.push(...answered.applied)
      sent.refused.push(...answered.refused)
    }
    return sent
  })
}

/** One request's worth; undefined when it could not be answered (the batch stays queued). */
async function sendBatch(avatarId: string, batch: QueuedAttend[]): Promise<Sent | undefined> {
  try {
    const results = await attendInBulk(avatarId, batch.map(({ key, habitId, date }) => ({ key, habitId, date })))
    const byKey = new Map(results.map((r) => [r.key, r]))
    const sent: Sent = { applied: [], refused: [] }
    for (const a of batch) {
      const r = byKey.get(a.key)
      if (!r) continue
      if (r.status < 300) sent.applied.push(a)
      else sent.refused.push({ ...a, refusal: refusalText(a.title, a.date, r.problem) })
    }
    return sent
  } catch (e) {
    // A request refused as a whole for what it holds (400) will never pass: each item says why.
    if (e instanceof ApiError && e.status === 400) {
      const problem = { type: e.type, title: e.title, ...(e.detail ? { detail: e.detail } : {}) }
      return { applied: [], refused: batch.map((a) => ({ ...a, refusal: refusalText(a.title, a.date, problem) })) }
    }
    return undefined
  }
}
