/**
 * The player's stream (DESIGN §9.2): which players an event of another context concerns. Pure.
 * An event concerns one avatar (its own changes, a trade, a notification), or a guild's members
 * (battle turns, membership and roles), sometimes with an avatar outside it (one who just left, an
 * invitee).
 */

export interface Audience {
  avatars?: string[]
  /** Every member of this guild, as the live context knows them when the event is applied. */
  guild?: string
}

/** An event as it enters the streams of its audience. */
export interface StreamDraft {
  eventId: string
  audience: Audience
  type: string
  occurredAt: string
  payload: unknown
}

/** One stream event of one avatar: its place in that avatar's stream (`seq`, 1, 2, 3… no gap) and what it says. */
export interface StreamEntry {
  avatarId: string
  seq: number
  type: string
  occurredAt: string
  payload: unknown
}

export const toAvatar = (p: { avatarId: string }): Audience => ({ avatars: [p.avatarId] })
export const toGuild = (p: { guildId: string }): Audience => ({ guild: p.guildId })
export const toInvitee = (p: { targetAvatarId: string }): Audience => ({ avatars: [p.targetAvatarId] })
export const toGuildAndInvitee = (p: { guildId: string; targetAvatarId: string }): Audience => ({ guild: p.guildId, avatars: [p.targetAvatarId] })
/** The members who stay, and the one who left (told it is out). */
export const toGuildAndMember = (p: { guildId: string; avatarId: string }): Audience => ({ guild: p.guildId, avatars: [p.avatarId] })
/** The guild's members, and the battle's participants: they still hear of it when the guild is gone by then. */
export const toGuildAndParticipants = (p: { guildId: string; participants?: string[] | undefined }): Audience => ({ guild: p.guildId, avatars: p.participants ?? [] })
export const toLeader = (p: { leaderAvatarId: string }): Audience => ({ avatars: [p.leaderAvatarId] })

/** The avatars an audience names, members looked up by `membersOf`: each once. */
export function recipients(audience: Audience, membersOf: (guildId: string) => string[]): string[] {
  return [...new Set([...(audience.guild ? membersOf(audience.guild) : []), ...(audience.avatars ?? [])])]
}

/** How a `Last-Event-ID` reads: a position in the avatar's stream, or unusable (then the stream starts with `resync`). */
export function parseLastEventId(raw: string | undefined): number | 'none' | 'invalid' {
  if (raw === undefined || raw === '') return 'none'
  if (!/^\d{1,15}$/.test(raw)) return 'invalid'
  return Number(raw)
}

/** One server-sent event, as written on the wire. */
export const sseEvent = (e: { seq: number; type: string; occurredAt: string; payload: unknown }): string =>
  `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify({ type: e.type, occurredAt: e.occurredAt, payload: e.payload })}\n\n`

/**
 * A control event (`resync`, `expired`). `resync` carries the position the stream goes on from as
 * its id, so that a client's next reconnect names that position rather than the stale one.
 */
export const sseControl = (type: string, data: unknown, id?: number): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`

/** Where a stream starts: after `from`, and whether it first tells the client to read the state again (why). */
interface Start {
  from: number
  resync?: string
}

/**
 * A stream asked to go on after `asked`, when the avatar's latest event is `current` and the
 * oldest kept is `firstKept`: from there when everything after it is kept; otherwise from now,
 * with `resync`. No Last-Event-ID: from now, nothing to replay.
 */
export function startOf(asked: number | 'none' | 'invalid', current: number, firstKept: number | undefined): Start {
  if (asked === 'none') return { from: current }
  if (asked === 'invalid' || asked > current) return { from: current, resync: 'The Last-Event-ID is not one this stream gave.' }
  if (asked === current) return { from: asked }
  if (firstKept === undefined || firstKept > asked + 1) return { from: current, resync: 'Events after the Last-Event-ID are no longer kept.' }
  return { from: asked }
}
