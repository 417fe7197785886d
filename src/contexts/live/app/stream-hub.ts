import type { Clock } from '../../../platform/clock.js'
import { reconnectHint } from '../../../platform/http/streaming.js'
import type { Logger } from '../../../platform/log.js'
import { partition } from '../../../platform/ownership/partitions.js'
import { STREAM_CATCH_UP_MS, STREAM_HEARTBEAT_MS, STREAM_READ_PAGE, STREAM_WATCH_RENEW_MS } from '../domain/rules.js'
import { sseControl, sseEvent, type StreamEntry } from '../domain/stream.js'

/** Where a stream's text goes: an HTTP response in practice. */
export interface StreamSink {
  /** Writes `text`; false when the client has left that much unread that the stream should be dropped. */
  write(text: string): boolean
  end(): void
}

/** Who may watch a stream, and until when. */
export interface StreamGrant {
  avatarId: string
  userId: string
  tokenId: string
  /** When that token was issued (seconds since the epoch), so a revocation of all the account's tokens ends the stream too. */
  tokenIssuedAt?: number
  /** When the token that opened it expires (ms since the epoch): the stream says `expired` and ends then. */
  expiresAtMs: number
}

/**
 * The history as the hub needs it: an avatar's entries after a position, many avatars' latest
 * positions, and recording these avatars' events for the history window from now (they are watched).
 */
export interface HistoryReader {
  after(avatarId: string, seq: number, limit: number): Promise<StreamEntry[]>
  lastSeqs(avatarIds: string[]): Promise<Map<string, number>>
  watch(avatarIds: string[]): Promise<void>
}

interface HubOptions {
  heartbeatMs: number
  catchUpMs: number
  /** How often the avatars of the open streams are watched again (their recording renewed). */
  watchRenewMs: number
  /** How often the hub looks whether that is due (no read unless it is); WATCH_CHECK_MS unless given. */
  watchCheckMs?: number
}

/**
 * One open stream. Entries reach it as they are broadcast; one that does not follow the last it
 * sent (a broadcast missed, or it arrived first from another process) makes it read the history
 * from its position instead, so it sends each entry once and in order.
 */
class Connection {
  private catchingUp = false
  private wake = false
  closed = false

  constructor(
    readonly grant: StreamGrant,
    private lastSeq: number,
    private readonly sink: StreamSink,
    private readonly history: HistoryReader,
    private readonly onDrop: (c: Connection, why: string) => void,
  ) {}

  get position(): number {
    return this.lastSeq
  }

  offer(entry: StreamEntry): void {
    if (this.closed || entry.seq <= this.lastSeq) return
    if (this.catchingUp || entry.seq !== this.lastSeq + 1) return void this.catchUp()
    this.send(entry)
  }

  /** Sends what the history holds after this stream's position, until it holds no more. */
  async catchUp(): Promise<void> {
    if (this.catchingUp) {
      this.wake = true
      return
    }
    this.catchingUp = true
    try {
      for (let more = true; more && !this.closed; ) {
        this.wake = false
        const entries = await this.history.after(this.grant.avatarId, this.lastSeq, STREAM_READ_PAGE)
        // What followed its position is not kept (it fell that far behind): its reconnect gets `resync`.
        if (entries.length > 0 && entries[0]!.seq !== this.lastSeq + 1) return this.onDrop(this, 'it fell behind the kept history')
        for (const e of entries) this.send(e)
        more = this.wake || entries.length === STREAM_READ_PAGE
      }
    } catch (e) {
      this.onDrop(this, `history read failed: ${(e as Error).message}`)
    } finally {
      this.catchingUp = false
    }
  }

  private send(entry: StreamEntry): void {
    this.lastSeq = entry.seq
    this.write(sseEvent(entry))
  }

  write(text: string): void {
    if (this.closed) return
    if (!this.sink.write(text)) this.onDrop(this, 'the client reads too slowly')
  }

  /** Ends the stream, after `lastWords` (a control event) when given. */
  end(lastWords?: string): void {
    if (this.closed) return
    if (lastWords) this.sink.write(lastWords)
    this.closed = true
    this.sink.end()
  }
}

/** How often the hub looks whether the open streams' recording is due for renewal (no read unless it is). */
const WATCH_CHECK_MS = 1_000

/**
 * The open streams of this process, by avatar. Entries arrive by broadcast (from whichever
 * process recorded them) and the database is read only when one may be missing: an entry whose
 * number skips one makes its stream catch up, the bus reporting a possible loss makes every
 * stream compare its position with the database (`resync`), and so does a sweep every
 * `catchUpMs` (a backstop: a process that died between its commit and its broadcast). A broadcast
 * lost on the way costs a delay, never an event. Every `heartbeatMs` each
 * stream gets a comment line, and streams whose token has expired or been revoked end.
 */
export class StreamHub {
  private readonly byAvatar = new Map<string, Set<Connection>>()
  private readonly timers: NodeJS.Timeout[] = []
  private sweeping = false
  /** The server is closing: streams end, with a reconnect hint, as they are opened. */
  private closing = false
  private renewedAt = 0
  private readonly released: (() => void)[] = []

  constructor(
    private readonly history: HistoryReader,
    private readonly clock: Clock,
    /** Whether the token that granted the stream is refused now: itself logged out, or its account's tokens all revoked. */
    private readonly isRevoked: (grant: StreamGrant) => boolean,
    private readonly options: HubOptions = { heartbeatMs: STREAM_HEARTBEAT_MS, catchUpMs: STREAM_CATCH_UP_MS, watchRenewMs: STREAM_WATCH_RENEW_MS },
    private readonly log?: Logger,
  ) {}

  /** The avatars this process holds open streams of. */
  holds(avatarId: string): boolean {
    return this.byAvatar.has(avatarId)
  }

  /** Whether this process holds a stream of any avatar in partition `p`. */
  holdsAnyOf(p: number): boolean {
    for (const avatarId of this.byAvatar.keys()) if (partition(avatarId) === p) return true
    return false
  }

  /** Calls `listener` each time the last stream of an avatar here ends. */
  onReleased(listener: () => void): void {
    this.released.push(listener)
  }

  get size(): number {
    let n = 0
    for (const set of this.byAvatar.values()) n += set.size
    return n
  }

  /** Opens a stream at position `from` and sends what followed it; answers a function that closes it (the client left). */
  open(grant: StreamGrant, from: number, sink: StreamSink): () => void {
    if (this.closing) {
      sink.write(reconnectHint())
      sink.end()
      return () => undefined
    }
    this.startTimers()
    const connection = new Connection(grant, from, sink, this.history, (c, why) => this.drop(c, why))
    let set = this.byAvatar.get(grant.avatarId)
    if (!set) this.byAvatar.set(grant.avatarId, (set = new Set()))
    set.add(connection)
    void connection.catchUp()
    return () => this.remove(connection)
  }

  deliver(entries: StreamEntry[]): void {
    for (const e of entries) {
      const set = this.byAvatar.get(e.avatarId)
      if (set) for (const c of set) c.offer(e)
    }
  }

  /**
   * Ends every stream (the server is closing, or draining), each with a reconnect hint: clients
   * reconnect elsewhere, from where they were. Streams opened from now on end so at once.
   */
  close(): void {
    this.closing = true
    for (const t of this.timers) clearInterval(t)
    this.timers.length = 0
    for (const set of this.byAvatar.values()) for (const c of set) c.end(reconnectHint())
    this.byAvatar.clear()
  }

  private startTimers(): void {
    if (this.timers.length > 0) return
    const every = (ms: number, work: () => void) => {
      const t = setInterval(work, ms)
      t.unref()
      this.timers.push(t)
    }
    every(this.options.heartbeatMs, () => this.heartbeat())
    every(this.options.catchUpMs, () => void this.sweep())
    every(this.options.watchCheckMs ?? WATCH_CHECK_MS, () => void this.renewWatch())
  }

  /** Broadcasts may have been lost (the bus says so): every stream compares itself with the database now. */
  resync(): void {
    void this.sweep()
  }

  /**
   * Renews the recording of the open streams' avatars once `watchRenewMs` have passed on the
   * platform's clock (checked every WATCH_CHECK_MS, so a clock set forward — tests — renews within
   * a second, not after the window has lapsed).
   */
  private async renewWatch(): Promise<void> {
    if (this.byAvatar.size === 0) return
    const now = this.clock.now().getTime()
    if (now - this.renewedAt < this.options.watchRenewMs && now >= this.renewedAt) return
    this.renewedAt = now
    await this.watch([...this.byAvatar.keys()]).catch((e: unknown) => this.log?.warn({ err: e }, 'stream watch renewal failed'))
  }

  /** Records these avatars' events from now for the history window (a stream opens, or stays open). */
  watch(avatarIds: string[]): Promise<void> {
    return this.history.watch(avatarIds)
  }

  private heartbeat(): void {
    const now = this.clock.now().getTime()
    for (const set of this.byAvatar.values()) {
      for (const c of set) {
        if (now >= c.grant.expiresAtMs || this.isRevoked(c.grant)) {
          c.end(sseControl('expired', { detail: 'The access token that opened this stream has expired or was revoked: open it again with a fresh one.' }))
          this.remove(c)
        } else {
          c.write(': keep-alive\n\n')
        }
      }
    }
  }

  /** Streams behind the database (a broadcast they missed) read what they lack. */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.byAvatar.size === 0) return
    this.sweeping = true
    try {
      const latest = await this.history.lastSeqs([...this.byAvatar.keys()])
      for (const [avatarId, seq] of latest) {
        for (const c of this.byAvatar.get(avatarId) ?? []) if (c.position < seq) void c.catchUp()
      }
    } catch (e) {
      this.log?.warn({ err: e }, 'stream catch-up failed')
    } finally {
      this.sweeping = false
    }
  }

  private drop(c: Connection, why: string): void {
    this.log?.info({ avatarId: c.grant.avatarId, why }, 'stream dropped')
    c.end()
    this.remove(c)
  }

  private remove(c: Connection): void {
    c.closed = true
    const set = this.byAvatar.get(c.grant.avatarId)
    if (!set) return
    set.delete(c)
    if (set.size > 0) return
    this.byAvatar.delete(c.grant.avatarId)
    for (const listener of this.released) listener()
  }
}
