/**
 * The live API (DESIGN §9.2): stream tickets, the inbox, and what the avatar's stream carries.
 * The OpenAPI document describes the stream as text, so the payloads below are written from the
 * producing contexts' event contracts (the stream route's description names them); the screens
 * read only the fields they use, and only after `readEvent` has checked the envelope.
 */
import type { paths } from '@questline/client'
import { api, completed, dataOf } from './client'

const e = encodeURIComponent
const avatarPath = (id: string) => `/api/v1/avatars/${e(id)}`

// ---- stream ----

type StreamTicket = paths['/api/v1/avatars/{id}/stream-tickets']['post']['responses'][201]['content']['application/json']

/** A single-use ticket that lets `EventSource` (which cannot send a header) open the stream; good for a minute. */
export const streamTicket = (avatarId: string): Promise<StreamTicket> =>
  dataOf(api.POST('/api/v1/avatars/{id}/stream-tickets', { params: { path: { id: avatarId } } }))

/** Where `EventSource` opens the avatar's stream: with a ticket, and where the last stream left off. */
export function streamUrl(avatarId: string, ticket: string, lastEventId: string | undefined): string {
  return `${avatarPath(avatarId)}/stream?ticket=${e(ticket)}${lastEventId ? `&lastEventId=${e(lastEventId)}` : ''}`
}

interface Items {
  items: { type: string; name: string }[]
}

/** Payloads by event type, as far as the web app reads them. */
export interface LivePayloads {
  AvatarChanged: {
    avatarId: string; level: number; experience: number; experienceRequired: number; health: number; maxHealth: number
    mana: number; maxMana: number; money: number; strength: number; defense: number; intelligence: number; unspentPoints: number
    inventory: Items['items']; equipped: Items['items']
    /** Optional: an event written without it says nothing of freezes. */
    streakFreezes?: { held: number; max: number }
  }
  AvatarLeveledUp: { avatarId: string; level: number; levelsGained: number; spellsLearned: string[] }
  AvatarDied: { avatarId: string; moneyLost: number }
  LeagueResult: { avatarId: string; season: string; tier: string; nextTier: string; rank: number; score: number; result: 'PROMOTED' | 'STAYED' | 'DEMOTED'; reward: number }
  HabitCreated: { habitId: string; avatarId: string }
  HabitDeleted: { habitId: string; avatarId: string }
  HabitAttended: { habitId: string; avatarId: string; windowStart: string; streak: number; reward: { experience: number; money: number } }
  HabitMissed: { habitId: string; avatarId: string; damage: number }
  QuestCompleted: { avatarId: string; questId: string }
  ItemBought: Record<string, unknown>
  ItemSold: Record<string, unknown>
  NotificationCreated: { notificationId: string; avatarId: string; type: string; title: string }
  InviteSent: { inviteId: string; guildId: string; guildName: string; targetAvatarId: string }
  InviteWithdrawn: { inviteId: string; guildId: string; targetAvatarId: string }
  GuildCreated: { guildId: string; name: string; leaderAvatarId: string }
  MemberJoined: { guildId: string; avatarId: string }
  MemberLeft: { guildId: string; avatarId: string }
  MemberRolesChanged: { guildId: string; changes: { avatarId: string; role: string }[] }
  GuildDisbanded: { guildId: string }
  BattleStarted: { battleId: string; guildId: string }
  BattleTurnTaken: {
    battleId: string; guildId: string; turn: number; numOfTurns: number; avatarId: string; dealt: number; strikeBack: number
    attackerFell: boolean; bossHealth: number; bossMaxHealth: number; status: 'IN_PROGRESS' | 'WON' | 'LOST'
  }
  BattleCancelled: { battleId: string; guildId: string; cancelledBy: string; participants?: string[] }
  BattleWon: { battleId: string; guildId: string }
  BattleLost: { battleId: string; guildId: string }
  GuildMessagePosted: { messageId: string; guildId: string; author: { avatarId: string; name: string }; text: string; sentAt: string; mentions: string[] }
  GuildMessageDeleted: { messageId: string; guildId: string; deletedBy: { avatarId: string; name: string }; deletedAt: string }
  /** Control: the stream could not replay from where the client left off; read the state again. */
  resync: { detail?: string }
}

export type LiveType = keyof LivePayloads
export const LIVE_TYPES = [
  'AvatarChanged', 'AvatarLeveledUp', 'AvatarDied', 'LeagueResult', 'HabitCreated', 'HabitDeleted', 'HabitAttended', 'HabitMissed', 'QuestCompleted',
  'ItemBought', 'ItemSold', 'NotificationCreated', 'InviteSent', 'InviteWithdrawn', 'GuildCreated', 'MemberJoined', 'MemberLeft',
  'MemberRolesChanged', 'GuildDisbanded', 'BattleStarted', 'BattleTurnTaken', 'BattleCancelled', 'BattleWon', 'BattleLost',
  'GuildMessagePosted', 'GuildMessageDeleted', 'resync',
] as const satisfies readonly LiveType[]

/** A guild's membership changed (founded, joined, left, roles, disbanded): what shows the guild reads it again. */
export const GUILD_CHANGES = ['GuildCreated', 'MemberJoined', 'MemberLeft', 'MemberRolesChanged', 'GuildDisbanded'] as const satisfies readonly LiveType[]

export interface LiveEvent<T extends LiveType = LiveType> {
  /** Its place in the avatar's stream. */
  id: string
  type: T
  occurredAt: string
  payload: LivePayloads[T]
}

/**
 * One server-sent event as the app uses it, or undefined when its data is not what the stream
 * sends (`{type, occurredAt, payload}`; a control event's data is its payload).
 */
export function readEvent<T extends LiveType>(type: T, id: string, data: string): LiveEvent<T> | undefined {
  let body: unknown
  try {
    body = JSON.parse(data)
  } catch {
    return undefined // not JSON: not an event the app can read
  }
  if (!body || typeof body !== 'object') return undefined
  if (type === 'resync') return { id, type, occurredAt: '', payload: body as LivePayloads[T] }
  const b = body as { type?: unknown; occurredAt?: unknown; payload?: unknown }
  if (b.type !== type || typeof b.occurredAt !== 'string' || !b.payload || typeof b.payload !== 'object') return undefined
  return { id, type, occurredAt: b.occurredAt, payload: b.payload as LivePayloads[T] }
}

// ---- inbox ----

export type InboxPage = paths['/api/v1/avatars/{id}/notifications']['get']['responses'][200]['content']['application/json']
export type Notification = InboxPage['items'][number]

export const inbox = (avatarId: string, opts: { limit?: number; cursor?: string | null; unread?: boolean } = {}): Promise<InboxPage> =>
  dataOf(api.GET('/api/v1/avatars/{id}/notifications', {
    params: {
      path: { id: avatarId },
      query: { limit: opts.limit ?? 20, ...(opts.cursor ? { cursor: opts.cursor } : {}), ...(opts.unread ? { unread: true } : {}) },
    },
  }))
export const markRead = (avatarId: string, notificationId: string) =>
  completed(api.POST('/api/v1/avatars/{id}/notifications/{nid}/read', { params: { path: { id: avatarId, nid: notificationId } } }))
export const markAllRead = (avatarId: string) => completed(api.POST('/api/v1/avatars/{id}/notifications/read-all', { params: { path: { id: avatarId } } }))

/** How many unread MENTION notifications the avatar has, counted over its unread ones (at most `UNREAD_MENTIONS_SCANNED`). */
export const UNREAD_MENTIONS_SCANNED = 100
export async function unreadMentions(avatarId: string): Promise<number> {
  const page = await inbox(avatarId, { unread: true, limit: UNREAD_MENTIONS_SCANNED })
  return page.items.filter((n) => n.type === 'MENTION' && !n.readAt).length
}
