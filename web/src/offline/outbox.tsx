/**
 * The check-ins that wait for the network, as every screen sees them: Today marks them pending,
 * the shell explains the refused ones until dismissed. The queue goes up when the browser comes
 * online, when the app opens with one, and every RETRY_MS while one waits; other tabs of the
 * origin hear of every change (BroadcastChannel) and show the same.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { now } from '../clock'
import { useGame } from '../game'
import { newAttendKey, putQueued, queuedFor, removeQueued, type QueuedAttend } from './outbox-store'
import { sendQueued } from './outbox-flush'
import './offline.css'

/** How often a waiting queue is tried again, besides the browser's `online` event. */
const RETRY_MS = 30_000
const CHANNEL = 'questline-outbox'

interface Outbox {
  /** Queued check-ins not yet answered, oldest first. */
  pending: QueuedAttend[]
  /** Check-ins the server refused, each with its reason, until dismissed. */
  refused: QueuedAttend[]
  /** Grows each time queued check-ins were applied (here or in another tab): screens read again. */
  applied: number
  /** Habits whose queued check-ins this tab just sent: their rewards are announced here, once. */
  sentHere: Set<string>
  enqueue: (habit: { id: string; title: string }, date: string) => Promise<void>
  dismiss: (key: string) => Promise<void>
}

const OutboxContext = createContext<Outbox | null>(null)

export function useOutbox(): Outbox {
  const o = useContext(OutboxContext)
  if (!o) throw new Error('useOutbox outside OutboxProvider')
  return o
}

export function OutboxProvider({ avatarId, children }: { avatarId: string; children: ReactNode }) {
  const { avatar, awaitRewards } = useGame()
  const [items, setItems] = useState<QueuedAttend[]>([])
  const [applied, setApplied] = useState(0)
  const sentHere = useRef(new Set<string>())
  const channel = useRef<BroadcastChannel | undefined>(undefined)
  const latestAvatar = useRef(avatar)
  latestAvatar.current = avatar

  const refresh = useCallback(async () => {
    setItems(await queuedFor(avatarId).catch(() => []))
  }, [avatarId])
  const changed = useCallback(async (what: 'queue' | 'applied') => {
    await refresh()
    channel.current?.postMessage(what)
  }, [refresh])

  const flush = useCallback(async () => {
    const before = latestAvatar.current
    const sent = await sendQueued(avatarId).catch(() => ({ applied: [], refused: [] }))
    if (sent.applied.length === 0 && sent.refused.length === 0) return
    for (const a of sent.applied) sentHere.current.add(a.habitId)
    await changed(sent.applied.length > 0 ? 'applied' : 'queue')
    if (sent.applied.length === 0) return
    setApplied((n) => n + 1)
    const titles = [...new Set(sent.applied.map((a) => a.title))].join(', ')
    await awaitRewards(before, `${titles} sent`)
  }, [avatarId, changed, awaitRewards])

  useEffect(() => {
    const c = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(CHANNEL)
    channel.current = c
    if (c) {
      c.onmessage = (e: MessageEvent) => {
        void refresh()
        if (e.data === 'applied') setApplied((n) => n + 1)
      }
    }
    void refresh().then(flush)
    const online = () => void flush()
    window.addEventListener('online', online)
    return () => {
      window.removeEventListener('online', online)
      c?.close()
      channel.current = undefined
    }
  }, [refresh, flush])

  const pending = useMemo(() => items.filter((a) => !a.refusal), [items])
  const refused = useMemo(() => items.filter((a) => a.refusal), [items])

  useEffect(() => {
    if (pending.length === 0) return
    const t = setInterval(() => void flush(), RETRY_MS)
    return () => clearInterval(t)
  }, [pending.length, flush])

  const enqueue = useCallback(async (habit: { id: string; title: string }, date: string) => {
    await putQueued({ key: newAttendKey(), avatarId, habitId: habit.id, title: habit.title, date, queuedAt: now() })
    await changed('queue')
  }, [avatarId, changed])
  const dismiss = useCallback(async (key: string) => {
    await removeQueued([key])
    await changed('queue')
  }, [changed])

  const value = useMemo<Outbox>(() => ({ pending, refused, applied, sentHere: sentHere.current, enqueue, dismiss }),
    [pending, refused, applied, enqueue, dismiss])
  return <OutboxContext.Provider value={value}>{children}</OutboxContext.Provider>
}

/** The refused check-ins, each explained in words, until the player dismisses it. */
export function OutboxRefusals() {
  const { refused, dismiss } = useOutbox()
  if (refused.length === 0) return null
  return (
    <ul className="outbox-refusals" aria-label="Check-ins not counted">
      {refused.map((a) => (
        <li key={a.key} className="notice notice-warn" role="alert">
          <span>{a.refusal}</span>
          <button type="button" className="ghost small" onClick={() => void dismiss(a.key)} aria-label={`Dismiss the note about ${a.title}`}>Dismiss</button>
        </li>
      ))}
    </ul>
  )
}
