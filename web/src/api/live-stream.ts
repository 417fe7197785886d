/**
 * One live connection to the avatar's stream, shared by the screens: they subscribe by event type.
 *
 * `EventSource` cannot send the access token, so each connection opens with a single-use ticket;
 * its own reconnect would show the spent ticket again (401) and give up. So this closes it on any
 * error and opens a new one itself, with a new ticket and `lastEventId` = the last event seen, so
 * the server replays what was missed (or says `resync` when it no longer can). Between attempts it
 * waits 0.5 s, doubling up to 10 s; `expired` (the token that opened the stream ran out) reconnects
 * at once, with the session's fresher token.
 */
import { now } from '../clock'
import { ApiError } from './client'
import { LIVE_TYPES, readEvent, streamTicket, streamUrl, type LiveEvent, type LiveType } from './live'
import { getSession } from './session'

/**
 * `connecting`: the first connection is being opened; `live`: events arrive; `reconnecting`: the
 * connection dropped and is being opened again; `offline`: several attempts in a row failed (it
 * keeps trying).
 */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'offline'

type Handler = (e: LiveEvent) => void

const FIRST_RETRY_MS = 500
const MAX_RETRY_MS = 10_000
/** After this many failed attempts in a row the player is told the app is offline. */
const OFFLINE_AFTER_FAILURES = 3
/** A connection that lasted this long was a good one: the next drop starts the backoff again. */
const HEALTHY_MS = 5_000

interface LiveStreamOptions {
  ticket?: (avatarId: string) => Promise<string>
}

export class LiveStream {
  private source: EventSource | undefined
  private lastEventId: string | undefined
  private failures = 0
  private openedAt = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = true
  /** Counts connection attempts, so an answer that arrives after a newer attempt began is dropped. */
  private attempt = 0
  private readonly handlers = new Map<LiveType, Set<Handler>>()
  private readonly statusListeners = new Set<(s: LiveStatus) => void>()
  private current: LiveStatus = 'connecting'
  private readonly ticket: (avatarId: string) => Promise<string>

  constructor(private readonly avatarId: string, opts: LiveStreamOptions = {}) {
    this.ticket = opts.ticket ?? (async (id) => (await streamTicket(id)).ticket)
  }

  get status(): LiveStatus {
    return this.current
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    window.addEventListener('online', this.onOnline)
    void this.connect()
  }

  stop(): void {
    this.stopped = true
    this.attempt++
    clearTimeout(this.timer)
    this.source?.close()
    this.source = undefined
    window.removeEventListener('online', this.onOnline)
  }

  /** Calls `h` with each event of `type`; returns the unsubscription. */
  on<T extends LiveType>(type: T, h: (e: LiveEvent<T>) => void): () => void {
    let set = this.handlers.get(type)
    if (!set) this.handlers.set(type, (set = new Set()))
    set.add(h as Handler)
    return () => void set.delete(h as Handler)
  }

  onStatus(l: (s: LiveStatus) => void): () => void {
    this.statusListeners.add(l)
    return () => void this.statusListeners.delete(l)
  }

  private setStatus(s: LiveStatus): void {
    if (s === this.current) return
    this.current = s
    for (const l of [...this.statusListeners]) l(s)
  }

  /** The network came back: try now rather than at the end of the backoff. */
  private readonly onOnline = () => {
    if (this.stopped || this.current === 'live') return
    clearTimeout(this.timer)
    void this.connect()
  }

  private async connect(): Promise<void> {
    const mine = ++this.attempt
    this.source?.close()
    this.source = undefined
    let ticket: string
    try {
      ticket = await this.ticket(this.avatarId)
    } catch (e) {
      if (mine !== this.attempt) return
      // Signed out meanwhile (the refresh was refused): nothing to reconnect for.
      if (e instanceof ApiError && e.status === 401 && !getSession()) return this.stop()
      return this.retry()
    }
    if (mine !== this.attempt || this.stopped) return
    const source = new EventSource(streamUrl(this.avatarId, ticket, this.lastEventId))
    this.source = source
    source.onopen = () => {
      if (source !== this.source) return
      this.openedAt = now()
      this.setStatus('live')
    }
    source.onerror = () => {
      if (source !== this.source) return
      // Closed before the browser retries with the spent ticket; a new one is fetched instead.
      this.drop(false)
    }
    for (const type of LIVE_TYPES) {
      source.addEventListener(type, (m) => {
        if (source === this.source) this.receive(type, m as MessageEvent<string>)
      })
    }
    source.addEventListener('expired', () => {
      if (source === this.source) this.drop(true)
    })
  }

  private receive(type: LiveType, m: MessageEvent<string>): void {
    if (m.lastEventId) this.lastEventId = m.lastEventId
    const event = readEvent(type, m.lastEventId, m.data)
    if (!event) return
    for (const h of [...(this.handlers.get(type) ?? [])]) {
      try {
        h(event)
      } catch (e) {
        // One screen's failing handler must not cost the others their events; the browser still reports it.
        reportError(e)
      }
    }
  }

  /** The connection ended: open a new one, at once after a healthy one ran out of token, else after the backoff. */
  private drop(expired: boolean): void {
    this.source?.close()
    this.source = undefined
    const healthy = this.openedAt > 0 && now() - this.openedAt >= HEALTHY_MS
    this.openedAt = 0
    if (healthy) this.failures = 0
    if (expired && healthy) {
      this.setStatus('reconnecting')
      void this.connect()
      return
    }
    this.retry()
  }

  private retry(): void {
    if (this.stopped) return
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.failures)
    this.failures++
    this.setStatus(this.failures >= OFFLINE_AFTER_FAILURES ? 'offline' : this.current === 'connecting' ? 'connecting' : 'reconnecting')
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.connect(), delay)
  }
}
