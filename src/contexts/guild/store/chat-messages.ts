import { and, desc, eq, gt, inArray, isNull, lt } from 'drizzle-orm'
import { deleteSome } from '../../../platform/db/bounded-delete.js'
import type { Queryable, Tx } from '../../../platform/db/database.js'
import type { ChatMessage, ChatPerson } from '../domain/chat.js'
import type { Role } from '../domain/guild.js'
import { chatMessages, members } from './tables.js'
import { isId } from '../../../platform/ids.js'

type Row = typeof chatMessages.$inferSelect

const toMessage = (r: Row): ChatMessage => ({
  id: r.id, guildId: r.guildId, author: { avatarId: r.authorAvatarId, name: r.authorName }, text: r.text, sentAt: r.sentAt,
  deletedBy: r.deletedByAvatarId === null ? null : { avatarId: r.deletedByAvatarId, name: r.deletedByName ?? '' }, deletedAt: r.deletedAt,
})

export const chatRepo = {
  /**
   * The member's role in the guild, its membership row locked until the transaction ends: the
   * member's posts in the guild are decided one after another, on every replica alike. Undefined
   * when the avatar is no member of it.
   */
  async lockMember(tx: Tx, guildId: string, avatarId: string): Promise<Role | undefined> {
    const [row] = await tx.select({ role: members.role }).from(members)
      .where(and(eq(members.guildId, guildId), eq(members.avatarId, avatarId))).for('update')
    return row?.role as Role | undefined
  },

  /** When the author's messages in the guild since `since` were sent (deleted ones count). */
  async sentSince(q: Queryable, guildId: string, authorAvatarId: string, since: Date): Promise<Date[]> {
    const rows = await q.select({ sentAt: chatMessages.sentAt }).from(chatMessages)
      .where(and(eq(chatMessages.authorAvatarId, authorAvatarId), eq(chatMessages.guildId, guildId), gt(chatMessages.sentAt, since)))
    return rows.map((r) => r.sentAt)
  },

  async insert(tx: Tx, m: ChatMessage): Promise<void> {
    await tx.insert(chatMessages).values({
      id: m.id, guildId: m.guildId, authorAvatarId: m.author.avatarId, authorName: m.author.name, text: m.text, sentAt: m.sentAt,
    })
  },

  async find(q: Queryable, guildId: string, id: string): Promise<ChatMessage | undefined> {
    const [row] = await q.select().from(chatMessages).where(and(eq(chatMessages.guildId, guildId), eq(chatMessages.id, id)))
    return row && toMessage(row)
  },

  /** Makes the message a tombstone, unless it is one already: true when this call did. */
  async tombstone(tx: Tx, id: string, by: ChatPerson, at: Date): Promise<boolean> {
    const done = await tx.update(chatMessages)
      .set({ text: null, deletedByAvatarId: by.avatarId, deletedByName: by.name, deletedAt: at })
      .where(and(eq(chatMessages.id, id), isNull(chatMessages.deletedAt))).returning({ id: chatMessages.id })
    return done.length > 0
  },

  /** The posting position of a message of the guild (a page's cursor), if it is one. */
  async seqOf(q: Queryable, guildId: string, id: string): Promise<number | undefined> {
    if (!isId(id)) return undefined // not an id at all: names no message (the column is a uuid)
    const [row] = await q.select({ seq: chatMessages.seq }).from(chatMessages).where(and(eq(chatMessages.guildId, guildId), eq(chatMessages.id, id)))
    return row?.seq
  },

  /** Up to `limit` messages of the guild, newest first, posted before position `beforeSeq` (from the newest without it). */
  async page(q: Queryable, guildId: string, beforeSeq: number | undefined, limit: number): Promise<ChatMessage[]> {
    const rows = await q.select().from(chatMessages)
      .where(and(eq(chatMessages.guildId, guildId), beforeSeq === undefined ? undefined : lt(chatMessages.seq, beforeSeq)))
      .orderBy(desc(chatMessages.seq)).limit(limit)
    return rows.map(toMessage)
  },

  /** Every message the avatar wrote, oldest first (its owner's export). */
  async byAuthor(q: Queryable, authorAvatarId: string): Promise<ChatMessage[]> {
    const rows = await q.select().from(chatMessages).where(eq(chatMessages.authorAvatarId, authorAvatarId)).orderBy(chatMessages.seq)
    return rows.map(toMessage)
  },

  async deleteOfAuthors(tx: Tx, avatarIds: string[]): Promise<void> {
    await tx.delete(chatMessages).where(inArray(chatMessages.authorAvatarId, avatarIds))
  },

  /** Deletes up to `limit` messages sent before `before` (the retention job). */
  pruneSome(q: Queryable, before: Date, limit: number): Promise<number> {
    return deleteSome(q, chatMessages, chatMessages.id, lt(chatMessages.sentAt, before), limit)
  },
}
