import type { GuildDraft } from '../../../contracts/events/guild.js'
import { type Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { NotFound, NotOwner } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { isId, newId } from '../../../platform/ids.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import { AggregateWriter } from '../../../platform/writer/writer.js'
import { ownsAnyOf, requireOwnedAvatar, UnknownAvatar, type AvatarClient } from '../../avatar/client.js'
import { AlreadyInGuild, AlreadyMember, GuildNameTaken, GuildRoleRequired } from '../domain/errors.js'
import * as rules from '../domain/guild.js'
import type { AssignableRole, Guild, Invite, Member } from '../domain/guild.js'
import { POINTS_PER_HABIT_COMPLETION } from '../domain/rules.js'
import { foundingColumns, guildAggregate, type VersionedGuild } from '../store/guild-aggregate.js'
import { chatRepo } from '../store/chat-messages.js'
import { guildRepo, inviteRepo, type StoredGuild } from '../store/guilds.js'

interface GuildDeps {
  database: Database
  outbox: Outbox<GuildDraft>
  clock: Clock
  avatars: AvatarClient
  /** Calls off the guild's battle in progress, if any, in the transaction that deletes the guild. */
  callOffBattle: (tx: Tx, guildId: string, by: string) => Promise<void>
}

type Draft = GuildDraft

/** An avatar's guild and its place in it. */
export interface Membership {
  guild: Guild
  member: Member
}

export interface RankedGuild {
  guild: Guild
  globalRank: number
}

/**
 * The guild context's membership use cases. Each change of the members runs in a transaction that
 * row-locks the guild, writes the members (the store) and has the platform writer save the guild
 * one membership version on, with the change's events.
 */
export class GuildApp {
  private readonly writer: AggregateWriter<VersionedGuild, GuildDraft>

  constructor(private readonly d: GuildDeps) {
    this.writer = new AggregateWriter<VersionedGuild, GuildDraft>(guildAggregate(d.outbox), {
      database: d.database, clock: d.clock, missing: (id) => new NotFound('Guild', id),
    })
  }

  // ---- reads ----

  async get(id: string): Promise<RankedGuild> {
    const q = this.d.database.current()
    const guild = await guildRepo.get(q, id)
    return { guild, globalRank: await guildRepo.rankOf(q, guild) }
  }

  async members(id: string): Promise<Member[]> {
    return (await guildRepo.get(this.d.database.current(), id)).members
  }

  async rank(id: string): Promise<number> {
    return (await this.get(id)).globalRank
  }

  async leaderboard(limit: number): Promise<RankedGuild[]> {
    const top = await guildRepo.leaderboard(this.d.database.current(), limit)
    return top.map((guild, i) => ({ guild, globalRank: i + 1 }))
  }

  async list(s: { name?: string | undefined; memberId?: string | undefined } & PageRequest): Promise<Page<RankedGuild>> {
    const q = this.d.database.current()
    const page = await readPage(s, {
      names: 'a guild',
      positionOf: (cursor) => guildRepo.seqOf(q, cursor),
      fetch: (afterSeq, limit) => guildRepo.list(q, { name: s.name, memberId: s.memberId, afterSeq, limit }),
      keyOf: (g) => g.id,
    })
    // A member in no guild, or no avatar at all: only the second is a bad request (asked only then).
    if (s.memberId && page.items.length === 0 && (await this.d.avatars.ownerOf(s.memberId)) === undefined) throw new UnknownAvatar(s.memberId, '/memberId')
    const ranked = await Promise.all(page.items.map(async (guild) => ({ guild, globalRank: await guildRepo.rankOf(q, guild) })))
    return { items: ranked, next: page.next }
  }

  guildOf(avatarId: string): Promise<string | undefined> {
    return guildRepo.guildOf(this.d.database.current(), avatarId)
  }

  /** The avatar's guild and its place in it, for its owner's export (DESIGN §9.4); null when it belongs to none. */
  async membershipOf(avatarId: string): Promise<Membership | null> {
    const q = this.d.database.current()
    const guildId = await guildRepo.guildOf(q, avatarId)
    const guild = guildId === undefined ? undefined : await guildRepo.find(q, guildId)
    const member = guild?.members.find((m) => m.avatarId === avatarId)
    return guild && member ? { guild, member } : null
  }

  /** Any string may be asked (another context's input): one that is no guild id names no guild. */
  async exists(guildId: string): Promise<boolean> {
    return isId(guildId) && guildRepo.exists(this.d.database.current(), guildId)
  }

  // ---- founding and disbanding ----

  async create(p: Principal, input: { name: string; creatorAvatarId: string; creatorNickname: string }): Promise<Guild> {
    const name = rules.guildName(input.name)
    const nickname = rules.nickname(input.creatorNickname, '/creatorNickname')
    await requireOwnedAvatar(this.d.avatars, p, input.creatorAvatarId, '/creatorAvatarId')
    const guild = rules.founding({ id: newId(), name, createdAt: this.d.clock.now() }, { avatarId: input.creatorAvatarId, nickname })
    await this.d.database.transaction(async (tx) => {
      const elsewhere = await guildRepo.guildOf(tx, input.creatorAvatarId)
      if (elsewhere) throw new AlreadyInGuild(input.creatorAvatarId, elsewhere)
      const made = await this.writer.insert(tx, { id: guild.id, version: 0 },
        [{ type: 'GuildCreated', payload: { guildId: guild.id, name, leaderAvatarId: input.creatorAvatarId } }], foundingColumns(guild))
      // The only key a new guild can clash on (its id is new): its name, in any case.
      if (!made) throw new GuildNameTaken(name)
      await guildRepo.founded(tx, guild)
      await inviteRepo.deleteOfTarget(tx, input.creatorAvatarId)
    }).catch((e: unknown) => this.namingTheGuild(e))
    return guild
  }

  /** Leader only. Without `requestorId` the caller must own the leader's avatar. */
  async delete(p: Principal, id: string, requestorId?: string): Promise<void> {
    // Ownership is asked before the row lock (it may be a call to the avatar service); the role
    // is checked again under the lock.
    const acting = requestorId ?? rules.leaderOf(await guildRepo.get(this.d.database.current(), id)).avatarId
    await requireOwnedAvatar(this.d.avatars, p, acting, '/requestorId')
    await this.d.database.transaction(async (tx) => {
      const guild = await guildRepo.getForUpdate(tx, id)
      rules.actingAs(guild, acting, rules.LEADER_ONLY, 'delete the guild')
      await this.disband(tx, guild, acting)
    })
  }

  /**
   * Deletes the guild (read under its row lock), on the word of avatar `by`, and calls off its
   * battle in progress; `drafts` are the events of the change that emptied it, if one did.
   */
  private async disband(tx: Tx, guild: StoredGuild, by: string, drafts: Draft[] = []): Promise<void> {
    await this.d.callOffBattle(tx, guild.id, by)
    await guildRepo.dissolve(tx, guild)
    await this.writer.remove(tx, guild, [...drafts, { type: 'GuildDisbanded', payload: { guildId: guild.id } }])
  }

  // ---- invites ----

  async invite(p: Principal, guildId: string, input: { requestorId: string; targetAvatarId: string }): Promise<Invite> {
    await requireOwnedAvatar(this.d.avatars, p, input.requestorId, '/requestorId')
    const targetExists = (await this.d.avatars.ownerOf(input.targetAvatarId)) !== undefined
    return await this.d.database.transaction(async (tx) => {
      const guild = await guildRepo.getForUpdate(tx, guildId)
      rules.actingAs(guild, input.requestorId, rules.INVITERS, 'invite')
      if (!targetExists) throw new UnknownAvatar(input.targetAvatarId, '/targetAvatarId')
      if (rules.memberOf(guild, input.targetAvatarId)) throw new AlreadyMember(input.targetAvatarId)
      const earlier = await inviteRepo.findFor(tx, guildId, input.targetAvatarId)
      const invite = rules.newInvite({ id: newId(), guildId, targetAvatarId: input.targetAvatarId, invitedBy: input.requestorId }, earlier, this.d.clock.now())
      if (earlier) await inviteRepo.delete(tx, earlier.id)
      await inviteRepo.insert(tx, invite)
      await this.d.outbox.add(tx, [{
        type: 'InviteSent', aggregateId: invite.id, version: 1,
        payload: { inviteId: invite.id, guildId, guildName: guild.name, targetAvatarId: invite.targetAvatarId, invitedBy: invite.invitedBy, expiresAt: invite.expiresAt.toISOString() },
      }])
      return invite
    })
  }

  /** Pending invites of a guild: for its leader and officers. */
  async invitesOfGuild(p: Principal, guildId: string): Promise<Invite[]> {
    const q = this.d.database.current()
    const guild = await guildRepo.get(q, guildId)
    await this.requireInviterOwner(p, guild)
    return this.pendingOnly(await inviteRepo.ofGuild(q, guildId))
  }

  /** One invite: for the guild's leader and officers and the invited avatar's owner. */
  async getInvite(p: Principal, guildId: string, inviteId: string): Promise<Invite> {
    return this.pendingInviteFor(p, guildId, inviteId, 'see')
  }

  /** Pending invites of an avatar: for its owner. */
  async invitesOfAvatar(p: Principal, avatarId: string): Promise<Invite[]> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    return this.pendingOnly(await inviteRepo.ofTarget(this.d.database.current(), avatarId))
  }

  /** Withdrawn by the guild's leader or officers, or declined by the invited avatar's owner. */
  async withdrawInvite(p: Principal, guildId: string, inviteId: string): Promise<void> {
    const invite = await this.pendingInviteFor(p, guildId, inviteId, 'withdraw or decline')
    await this.d.database.transaction(async (tx) => {
      await inviteRepo.delete(tx, invite.id)
      await this.d.outbox.add(tx, [{
        type: 'InviteWithdrawn', aggregateId: invite.id, version: 2, payload: { inviteId: invite.id, guildId, targetAvatarId: invite.targetAvatarId },
      }])
    })
  }

  private pendingOnly(invites: Invite[]): Invite[] {
    const now = this.d.clock.now()
    return invites.filter((i) => rules.isPending(i, now))
  }

  /** A pending invite, for the invited avatar's owner and the guild's leader and officers; an expired one is gone. */
  private async pendingInviteFor(p: Principal, guildId: string, inviteId: string, action: string): Promise<Invite> {
    const q = this.d.database.current()
    const guild = await guildRepo.get(q, guildId)
    const invite = await inviteRepo.find(q, guildId, inviteId)
    if (!invite || !rules.isPending(invite, this.d.clock.now())) throw new NotFound('Invite', inviteId)
    if (!(await ownsAnyOf(this.d.avatars, p, [invite.targetAvatarId, ...inviterIds(guild)]))) {
      throw new NotOwner(`Only the invited avatar's owner and the guild's leader and officers may ${action} an invite.`)
    }
    return invite
  }

  async accept(p: Principal, guildId: string, inviteId: string, input: { avatarId: string; nickname: string }): Promise<void> {
    const nickname = rules.nickname(input.nickname, '/nickname')
    await requireOwnedAvatar(this.d.avatars, p, input.avatarId, '/avatarId')
    await this.d.database.transaction(async (tx) => {
      const guild = await guildRepo.getForUpdate(tx, guildId)
      // Judged before the invite: joining a guild withdraws the avatar's other invites, so an
      // accept that comes after (or races) a join finds none, and the clear answer is the guild.
      const elsewhere = await guildRepo.guildOf(tx, input.avatarId)
      if (elsewhere === guildId) throw new AlreadyMember(input.avatarId)
      if (elsewhere) throw new AlreadyInGuild(input.avatarId, elsewhere)
      const invite = await inviteRepo.find(tx, guildId, inviteId)
      if (!invite) {
        // A join elsewhere that committed since the look above withdrew this invite: name that guild.
        const joined = await guildRepo.guildOf(tx, input.avatarId)
        if (joined) throw joined === guildId ? new AlreadyMember(input.avatarId) : new AlreadyInGuild(input.avatarId, joined)
        throw new NotFound('Invite', inviteId)
      }
      const after = rules.admit(guild, invite, input.avatarId, nickname, this.d.clock.now())
      await guildRepo.saveMembers(tx, guildId, guild.members, after)
      await this.writer.save(tx, guild, guild, [{ type: 'MemberJoined', payload: { guildId, avatarId: input.avatarId } }])
      await inviteRepo.deleteOfTarget(tx, input.avatarId)
    }).catch((e: unknown) => this.namingTheGuild(e))
  }

  /** A join that lost a race to another (the store's unique key refused it) answers which guild won. */
  private async namingTheGuild(e: unknown): Promise<never> {
    if (e instanceof AlreadyInGuild && !e.guildId) {
      const guildId = await guildRepo.guildOf(this.d.database.current(), e.avatarId)
      if (guildId) throw new AlreadyInGuild(e.avatarId, guildId)
    }
    throw e
  }

  // ---- members and roles ----

  async removeMember(p: Principal, guildId: string, memberId: string, requestorId: string): Promise<void> {
    await requireOwnedAvatar(this.d.avatars, p, requestorId, '/requestorId')
    await this.changeMembers(guildId, requestorId, (g) => rules.remove(g, requestorId, memberId),
      [{ type: 'MemberLeft', payload: { guildId, avatarId: memberId, reason: 'REMOVED' } }])
  }

  async leave(p: Principal, guildId: string, memberId: string): Promise<void> {
    await requireOwnedAvatar(this.d.avatars, p, memberId, '/memberId')
    await this.changeMembers(guildId, memberId, (g) => rules.leave(g, memberId),
      [{ type: 'MemberLeft', payload: { guildId, avatarId: memberId, reason: 'LEFT' } }])
  }

  async changeRole(p: Principal, guildId: string, memberId: string, input: { roleName: AssignableRole; requestorId: string }): Promise<void> {
    await requireOwnedAvatar(this.d.avatars, p, input.requestorId, '/requestorId')
    await this.changeMembers(guildId, input.requestorId, (g) => rules.changeRole(g, input.requestorId, memberId, input.roleName))
  }

  async transferLeadership(p: Principal, guildId: string, input: { avatarId: string; requestorId: string }): Promise<void> {
    await requireOwnedAvatar(this.d.avatars, p, input.requestorId, '/requestorId')
    await this.changeMembers(guildId, input.requestorId, (g) => rules.transferLeadership(g, input.requestorId, input.avatarId))
  }

  /** A change of the members, asked for by avatar `actor`; one that empties the guild disbands it. */
  private async changeMembers(guildId: string, actor: string, decide: (g: Guild) => Member[], drafts: Draft[] = []): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const guild = await guildRepo.getForUpdate(tx, guildId)
      const after = decide(guild)
      if (after.length === 0) return this.disband(tx, guild, actor, drafts)
      const changes = rules.roleChanges(guild.members, after)
      const roles: Draft[] = changes.length > 0 ? [{ type: 'MemberRolesChanged', payload: { guildId, changes } }] : []
      await guildRepo.saveMembers(tx, guildId, guild.members, after)
      await this.writer.save(tx, guild, guild, [...drafts, ...roles])
    })
  }

  // ---- reactions and jobs ----

  /** Habit completions by these avatars (one entry each): each member's guild gains its points. */
  async awardHabitCompletions(avatarIds: string[]): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      const guildOf = await guildRepo.guildsOf(tx, [...new Set(avatarIds)])
      const points = new Map<string, number>()
      for (const id of avatarIds) {
        const guildId = guildOf.get(id)
        if (guildId) points.set(guildId, (points.get(guildId) ?? 0) + POINTS_PER_HABIT_COMPLETION)
      }
      for (const [guildId, n] of points) await guildRepo.addPoints(tx, guildId, n)
    })
  }

  /** A battle won (BattleWon): the guild gains its points, once. A guild gone since gains nothing. */
  async awardVictory(guildId: string, points: number): Promise<void> {
    await this.d.database.transaction((tx) => guildRepo.addPoints(tx, guildId, points))
  }

  /** An avatar was deleted: it leaves its guild (with succession) and its invites go. */
  async avatarDeleted(avatarId: string): Promise<void> {
    await this.d.database.transaction(async (tx) => {
      await inviteRepo.deleteOfTarget(tx, avatarId)
      // The avatar's chat messages go with it (DESIGN §9.4: nothing it wrote outlives the account).
      await chatRepo.deleteOfAuthors(tx, [avatarId])
      const guildId = await guildRepo.guildOf(tx, avatarId)
      if (!guildId) return
      await this.changeMembers(guildId, avatarId, (g) => rules.leave(g, avatarId),
        [{ type: 'MemberLeft', payload: { guildId, avatarId, reason: 'AVATAR_DELETED' } }])
    })
  }

  async expireInvites(): Promise<number> {
    return this.d.database.transaction((tx) => inviteRepo.deleteExpired(tx, this.d.clock.now()))
  }

  private async requireInviterOwner(p: Principal, guild: Guild): Promise<void> {
    if (await ownsAnyOf(this.d.avatars, p, inviterIds(guild))) return
    throw new GuildRoleRequired('see its invites', rules.INVITERS)
  }
}

const inviterIds = (g: Guild) => g.members.filter((m) => rules.INVITERS.includes(m.role)).map((m) => m.avatarId)
