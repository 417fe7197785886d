import { createHash } from 'node:crypto'
import type { Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { Unauthorized } from '../../../platform/errors.js'
import type { Broadcast } from '../../../platform/events/broadcast.js'
import { newSecret } from '../../../platform/ids.js'
import { partition } from '../../../platform/ownership/partitions.js'
import { coalescedReads } from '../../../platform/writer/coalescer.js'
import { requireOwnedAvatar, type AvatarClient } from '../../avatar/client.js'
import { STREAM_RETRY_MS, STREAM_TICKET_TTL_SECONDS } from '../domain/rules.js'
import { parseLastEventId, recipients, sseControl, startOf, type StreamDraft, type StreamEntry } from '../domain/stream.js'
import { guildMemberRepo } from '../store/guild-members.js'
import { streamHistory, type NewEntry } from '../store/stream-history.js'
import { streamTicketRepo } from '../store/stream-tickets.js'
import type { StreamGrant, StreamHub, StreamSink } from './stream-hub.js'

/**
 * The broadcast topic on which recorded entries of avatars in one partition reach the processes
 * holding streams of such avatars: the partition's owner, where the gateway sends those streams.
 */
const appendedTopic = (p: number) => `live.stream-appended.${p}`
/** Entries per broadcast message. */
const BROADCAST_ENTRIES = 100

interface StreamDeps {
  database: Database
  clock: Clock
  avatars: AvatarClient
  broadcast: Broadcast
  hub: StreamHub
}

/** How a stream request proves who it is: the token's principal, or a ticket it got with one. */
type StreamCredentials = { principal: Principal } | { ticket: string }

const digest = (ticket: string) => createHash('sha256').update(ticket).digest('base64url')

/**
 * The player's stream (DESIGN §9.2): events of other contexts recorded in each concerned avatar's
 * history, in the consumer's transaction, and broadcast once committed to the processes that hold
 * streams; stream tickets; and opening a stream where the client left off.
 */
export class StreamApp {
  /**
   * Who belongs to a guild, and whether an avatar's events are recorded now: asked by the consumers
   * of every event type at once (each its own batch), so the asks of one turn go in one statement each.
   */
  private readonly membersOf: (guildId: string) => Promise<string[] | undefined>
  private readonly isWatched: (avatarId: string) => Promise<boolean | undefined>

  /** The partitions this process listens to (it holds a stream of an avatar in each), with how to stop. */
  private readonly listening = new Map<number, () => void>()

  constructor(private readonly d: StreamDeps) {
    d.hub.onReleased(() => this.stopListeningIdle())
    d.broadcast.onPossibleLoss(() => d.hub.resync())
    const db = d.database
    this.membersOf = coalescedReads((guildIds) => guildMemberRepo.membersOf(db.db, guildIds), db.statementsInFlight)
    this.isWatched = coalescedReads(async (ids) => {
      const watched = await streamHistory.watched(db, ids, d.clock.now())
      return new Map(ids.map((id) => [id, watched.has(id)]))
    }, db.statementsInFlight)
  }

  /**
   * The entries the drafts make for the avatars being watched (a stream open, or closed within the
   * history window): read outside any transaction, so that events nobody watches cost one read.
   */
  async watchedEntries(drafts: StreamDraft[]): Promise<(NewEntry & { eventId: string })[]> {
    const guilds = [...new Set(drafts.flatMap((d) => (d.audience.guild ? [d.audience.guild] : [])))]
    const members = new Map(await Promise.all(guilds.map(async (g) => [g, (await this.membersOf(g)) ?? []] as const)))
    const entries = drafts.flatMap((d) => recipients(d.audience, (g) => members.get(g) ?? [])
      .map((avatarId) => ({ eventId: d.eventId, avatarId, type: d.type, occurredAt: d.occurredAt, payload: d.payload })))
    // A stream open in this process needs no read (nor a clock that agrees with the window).
    const elsewhere = [...new Set(entries.map((e) => e.avatarId))].filter((id) => !this.d.hub.holds(id))
    const watched = new Set((await Promise.all(elsewhere.map(async (id) => ((await this.isWatched(id)) ? [id] : [])))).flat())
    return entries.filter((e) => this.d.hub.holds(e.avatarId) || watched.has(e.avatarId))
  }

  /** Appends entries to their avatars' histories (in the consumer's transaction); broadcast after commit. */
  async append(tx: Tx, entries: NewEntry[]): Promise<void> {
    const numbered = await streamHistory.append(tx, entries)
    if (numbered.length === 0) return
    this.d.database.afterCommit(() => {
      const byPartition = new Map<number, StreamEntry[]>()
      for (const e of numbered) {
        const p = partition(e.avatarId)
        const group = byPartition.get(p)
        if (group) group.push(e)
        else byPartition.set(p, [e])
      }
      for (const [p, entries] of byPartition) {
        // In messages of a bounded size (NATS refuses one over its payload limit, 1 MB by default).
        for (let i = 0; i < entries.length; i += BROADCAST_ENTRIES) this.d.broadcast.publish(appendedTopic(p), entries.slice(i, i + BROADCAST_ENTRIES))
      }
    })
  }

  /** Listens to the news of the avatar's partition (from before its stream reads the history, so nothing falls between). */
  private listenFor(avatarId: string): void {
    const p = partition(avatarId)
    if (this.listening.has(p)) return
    this.listening.set(p, this.d.broadcast.subscribe(appendedTopic(p), (entries) => this.d.hub.deliver(entries as StreamEntry[])))
  }

  /** Stops listening to partitions this process holds no stream of any more. */
  private stopListeningIdle(): void {
    for (const [p, stop] of this.listening) {
      if (this.d.hub.holdsAnyOf(p)) continue
      stop()
      this.listening.delete(p)
    }
  }

  /** A single-use ticket to open the avatar's stream without a header (`EventSource`). */
  async issueTicket(p: Principal, avatarId: string): Promise<{ ticket: string; expiresIn: number }> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    const ticket = newSecret()
    const now = this.d.clock.now()
    await streamTicketRepo.insert(this.d.database.db, {
      hash: digest(ticket), avatarId, userId: p.userId, tokenId: p.tokenId,
      tokenIssuedAt: p.issuedAt === undefined ? null : new Date(p.issuedAt * 1000), tokenExpiresAt: new Date(p.expiresAt * 1000), expiresAt: new Date(now.getTime() + STREAM_TICKET_TTL_SECONDS * 1000),
    })
    return { ticket, expiresIn: STREAM_TICKET_TTL_SECONDS }
  }

  /** Who may open this avatar's stream: the owner's token, or an unused, unexpired ticket for this avatar. */
  async grant(credentials: StreamCredentials, avatarId: string): Promise<StreamGrant> {
    if ('principal' in credentials) {
      const p = credentials.principal
      await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
      return { avatarId, userId: p.userId, tokenId: p.tokenId, ...(p.issuedAt === undefined ? {} : { tokenIssuedAt: p.issuedAt }), expiresAtMs: p.expiresAt * 1000 }
    }
    const row = await streamTicketRepo.take(this.d.database.db, digest(credentials.ticket))
    const now = this.d.clock.now()
    if (!row || row.expiresAt <= now || row.avatarId !== avatarId) {
      throw new Unauthorized('The stream ticket is unknown, used, expired or for another avatar: ask for a new one with the access token.', 'invalid-ticket')
    }
    return {
      avatarId, userId: row.userId, tokenId: row.tokenId, expiresAtMs: row.tokenExpiresAt.getTime(),
      ...(row.tokenIssuedAt ? { tokenIssuedAt: Math.floor(row.tokenIssuedAt.getTime() / 1000) } : {}),
    }
  }

  /**
   * Starts the stream: from the event after `lastEventId` when the history still holds it, else
   * (none kept that far back, an id from the future, one that is no id) with `resync` from now.
   */
  async open(grant: StreamGrant, lastEventId: string | undefined, sink: StreamSink): Promise<() => void> {
    const asked = parseLastEventId(lastEventId)
    const now = this.d.clock.now()
    this.listenFor(grant.avatarId)
    const { lastSeq: current, watchedUntil } = await streamHistory.position(this.d.database, grant.avatarId)
    await this.d.hub.watch([grant.avatarId])
    // Nothing was recorded while nobody watched: a replay across that time would miss it.
    const lapsed = typeof asked === 'number' && asked <= current && (!watchedUntil || watchedUntil <= now)
    const firstKept = typeof asked === 'number' && asked < current ? await streamHistory.firstKept(this.d.database, grant.avatarId) : undefined
    const start = lapsed ? { from: current, resync: 'Events were not kept while no stream of this avatar was open.' } : startOf(asked, current, firstKept)
    sink.write(`retry: ${STREAM_RETRY_MS}\n\n`)
    if (start.resync) sink.write(sseControl('resync', { detail: `${start.resync} Read the state again; the stream goes on from here.` }, current))
    return this.d.hub.open(grant, start.from, sink)
  }

  async pruneTickets(before: Date, limit: number): Promise<number> {
    return streamTicketRepo.pruneSome(this.d.database, before, limit)
  }
}
