/**
 * The signed-in avatar's live stream for the screens: one connection (api/live-stream.ts) opened
 * by the provider, events subscribed to by type with `useLiveEvent`, and `useReloadOn` for a
 * screen that simply reads its data again when something it shows has changed.
 */
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react'
import type { LiveEvent, LiveType } from './api/live'
import { LiveStream, type LiveStatus } from './api/live-stream'

const LiveContext = createContext<LiveStream | null>(null)

export function LiveProvider({ avatarId, children }: { avatarId: string; children: ReactNode }) {
  const [stream] = useState(() => new LiveStream(avatarId))
  useEffect(() => {
    stream.start()
    return () => stream.stop()
  }, [stream])
  return <LiveContext.Provider value={stream}>{children}</LiveContext.Provider>
}

function useStream(): LiveStream {
  const s = useContext(LiveContext)
  if (!s) throw new Error('useLive… outside LiveProvider')
  return s
}

export function useLiveStatus(): LiveStatus {
  const stream = useStream()
  const [status, setStatus] = useState(stream.status)
  useEffect(() => {
    setStatus(stream.status)
    return stream.onStatus(setStatus)
  }, [stream])
  return status
}

/** Calls `handler` (its latest version) with each event of these types while the component is shown. */
export function useLiveEvent<T extends LiveType>(types: T | readonly T[], handler: (e: LiveEvent<T>) => void): void {
  const stream = useStream()
  const latest = useRef(handler)
  latest.current = handler
  const list: readonly T[] = typeof types === 'string' ? [types] : types
  const key = list.join(',')
  useEffect(() => {
    const offs = list.map((t) => stream.on(t, (e) => latest.current(e)))
    return () => offs.forEach((off) => off())
    // The types are compared by name: a new array with the same names is the same subscription.
  }, [stream, key])
}

/**
 * Calls `f` when the stream becomes live while the component is shown without it: the first
 * connection (a change between the component's first reading and the stream's opening would be
 * lost otherwise) and each reconnection.
 */
export function useOnLive(f: () => void): void {
  const status = useLiveStatus()
  const latest = useRef(f)
  latest.current = f
  const wasLive = useRef(status === 'live')
  useEffect(() => {
    const live = status === 'live'
    if (live && !wasLive.current) latest.current()
    wasLive.current = live
  }, [status])
}

/** Events that come in one burst (a replay, a battle's last turn and its outcome) cause one read. */
const COALESCE_MS = 50

/**
 * Reads again with `reload` after events of these types that `concerns` (default: all), after
 * `resync`, and when the stream becomes live (useOnLive); a burst of them causes one read.
 */
export function useReloadOn<T extends LiveType>(types: readonly T[], reload: () => unknown, concerns?: (e: LiveEvent<T>) => boolean): void {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  const soon = () => {
    clearTimeout(timer.current)
    timer.current = setTimeout(() => void reload(), COALESCE_MS)
  }
  useLiveEvent<T | 'resync'>([...types, 'resync'], (e) => {
    if (e.type !== 'resync' && concerns && !concerns(e as LiveEvent<T>)) return
    soon()
  })
  useOnLive(soon)
}
