import type { GuildDraft } from '../../../contracts/events/guild.js'
import type { Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import { ownsAnyOf, type AvatarClient } from '../../avatar/client.js'
import { mentionsIn, messageText, requirePostAllowed, type ChatMessage, type Mentionable } from '../domain/chat.js'
import { GuildMembersOnly, GuildRoleRequired } from '../domain/errors.js'
import { INVITERS, type Member } from '../domain/guild.js'
import { CHAT_BURST_WINDOW_MS } from '../domain/rules.js'
import { chatRepo } from '../store/chat-messages.js'
import { guildRepo } from '../store/guilds.js'

interface ChatDeps {
  database: Database
  outbox: Outbox<GuildDraft>
  clock: Clock
  avatars: AvatarClient
}

/** A member of the guild as chat sees it: its place in the guild, its owner and its public name. */
interface Speaker extends Member, Mentionable {
  ownerId: string
}

/** Who deletes a message besides its author. */
const MODERATORS = INVITERS

/**
 * Guild chat (DESIGN §9.5). The caller speaks as the avatar they own among the guild's members
 * (the longest-serving, if several). Names and owners are read from the avatar context before the
 * transaction; the transaction locks the author's membership row, so that the burst limit is
 * decided from the database, one post of a member after another, whichever replica answers.
 */
export class ChatApp {
  constructor(private readonly d: ChatDeps) {}

  async post(p: Principal, guildId: string, raw: string): Promise<ChatMessage> {
    const text = messageText(raw)
    const speakers = await this.speakers(guildId)
    const author = this.callerAmong(p, speakers, 'post in its chat')
    const message: ChatMessage = {
      id: newId(), guildId, author: { avatarId: author.avatarId, name: author.name }, text, sentAt: this.d.clock.now(), deletedBy: null, deletedAt: null,
    }
    const mentions = mentionsIn(text, speakers, author.avatarId)
    await this.d.database.transaction(async (tx) => {
      // The author may have left since the read above: judged again under the lock.
      if ((await chatRepo.lockMember(tx, guildId, author.avatarId)) === undefined) throw new GuildMembersOnly('post in its chat')
      const now = this.d.clock.now()
      requirePostAllowed(await chatRepo.sentSince(tx, guildId, author.avatarId, new Date(now.getTime() - CHAT_BURST_WINDOW_MS)), now)
      message.sentAt = now
      await chatRepo.insert(tx, message)
      await this.d.outbox.add(tx, [{
        type: 'GuildMessagePosted', aggregateId: message.id, version: 1,
        payload: { messageId: message.id, guildId, author: message.author, text, sentAt: now.toISOString(), mentions },
      }])
    })
    return message
  }

  /** A page of the guild's messages, newest first; `cursor` names the message the page comes after (older than it). */
  async page(p: Principal, guildId: string, asked: PageRequest): Promise<Page<ChatMessage>> {
    const q = this.d.database.current()
    const guild = await guildRepo.get(q, guildId)
    if (!(await ownsAnyOf(this.d.avatars, p, guild.members.map((m) => m.avatarId)))) throw new GuildMembersOnly('read its chat')
    return readPage(asked, {
      names: 'a message of this guild',
      positionOf: (cursor) => chatRepo.seqOf(q, guildId, cursor),
      fetch: (beforeSeq, limit) => chatRepo.page(q, guildId, beforeSeq, limit),
      keyOf: (m) => m.id,
    })
  }

  /**
   * Its author (a member or not) or an officer or the leader deletes a message: it stays as a
   * tombstone. Deleting a tombstone again changes nothing and succeeds.
   */
  async delete(p: Principal, guildId: string, messageId: string): Promise<void> {
    const speakers = await this.speakers(guildId)
    const message = await chatRepo.find(this.d.database.current(), guildId, messageId)
    if (!message) throw new NotFound('Message', messageId)
    const deleter = await this.deleterOf(p, message, speakers)
    await this.d.database.transaction(async (tx) => {
      const at = this.d.clock.now()
      if (!(await chatRepo.tombstone(tx, messageId, deleter, at))) return
      await this.d.outbox.add(tx, [{
        type: 'GuildMessageDeleted', aggregateId: messageId, version: 2,
        payload: { messageId, guildId, deletedBy: deleter, deletedAt: at.toISOString() },
      }])
    })
  }

  /** Every message the avatar wrote, oldest first, for its owner's export (DESIGN §9.4). */
  messagesOf(avatarId: string): Promise<ChatMessage[]> {
    return chatRepo.byAuthor(this.d.database.current(), avatarId)
  }

  /** The caller's avatar that deletes the message: its author, else a moderator of the guild. */
  private async deleterOf(p: Principal, message: ChatMessage, speakers: Speaker[]): Promise<{ avatarId: string; name: string }> {
    const own = speakers.filter((s) => s.ownerId === p.userId)
    const asAuthor = own.find((s) => s.avatarId === message.author.avatarId)
    if (asAuthor) return { avatarId: asAuthor.avatarId, name: asAuthor.name }
    if (!speakers.some((s) => s.avatarId === message.author.avatarId) && (await this.d.avatars.isOwner(message.author.avatarId, p.userId))) {
      return message.author
    }
    if (own.length === 0) throw new GuildMembersOnly('delete its messages')
    const moderator = own.find((s) => MODERATORS.includes(s.role))
    if (!moderator) throw new GuildRoleRequired("delete another member's message", MODERATORS)
    return { avatarId: moderator.avatarId, name: moderator.name }
  }

  /** The guild's members with their owners and public names (404 for an unknown guild). */
  private async speakers(guildId: string): Promise<Speaker[]> {
    const guild = await guildRepo.get(this.d.database.current(), guildId)
    const profiles = await this.d.avatars.profiles(guild.members.map((m) => m.avatarId))
    return guild.members.flatMap((m) => {
      const profile = profiles.get(m.avatarId)
      return profile ? [{ ...m, ownerId: profile.ownerId, name: profile.name }] : []
    })
  }

  private callerAmong(p: Principal, speakers: Speaker[], action: string): Speaker {
    const own = speakers.find((s) => s.ownerId === p.userId)
    if (!own) throw new GuildMembersOnly(action)
    return own
  }
}
