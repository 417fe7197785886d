/**
 * The check-ins made while the server could not be reached, kept in IndexedDB until the bulk
 * endpoint has answered for them (DESIGN §9.6). Each belongs to one avatar: a device shared by
 * two players sends each one's check-ins only in that player's session. A refused check-in stays
 * (with the server's reason) until the player dismisses it, so none disappears unexplained.
 */

export interface QueuedAttend {
  /** The bulk endpoint's key: a replay of it applies nothing twice. */
  key: string
  avatarId: string
  habitId: string
  /** What the habit was called, to speak of it after it is sent. */
  title: string
  /** The local date-time of the check-in in the habit's zone, as the single attend sends it. */
  date: string
  /** When it was queued (epoch ms): the queue goes up in this order. */
  queuedAt: number
  /** Set once the server refused it: why, in the player's words. */
  refusal?: string
}

const DB_NAME = 'questline-offline'
const STORE = 'attends'

let opened: Promise<IDBDatabase> | undefined

function database(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const open = indexedDB.open(DB_NAME, 1)
    open.onupgradeneeded = () => open.result.createObjectStore(STORE, { keyPath: 'key' })
    open.onsuccess = () => resolve(open.result)
    open.onerror = () => {
      opened = undefined
      reject(open.error ?? new Error('IndexedDB is unavailable'))
    }
  })
  return opened
}

/** Runs `f` on the store in one transaction and resolves when that transaction has committed. */
async function inStore<T>(mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T> | void): Promise<T | undefined> {
  const db = await database()
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode)
    const request = f(tx.objectStore(STORE))
    tx.oncomplete = () => resolve(request ? request.result : undefined)
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'))
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'))
  })
}

/** The avatar's queued check-ins, the oldest first (refused ones included). */
export async function queuedFor(avatarId: string): Promise<QueuedAttend[]> {
  const all = (await inStore<QueuedAttend[]>('readonly', (s) => s.getAll() as IDBRequest<QueuedAttend[]>)) ?? []
  return all.filter((a) => a.avatarId === avatarId).sort((a, b) => a.queuedAt - b.queuedAt || a.key.localeCompare(b.key))
}

export const putQueued = (a: QueuedAttend) => inStore('readwrite', (s) => void s.put(a))

export const removeQueued = (keys: readonly string[]) => inStore('readwrite', (s) => {
  for (const k of keys) s.delete(k)
})

/** A key of the form the bulk endpoint takes (8–64 of A–Z a–z 0–9 _ -): 128 random bits, base64url. */
export function newAttendKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}
