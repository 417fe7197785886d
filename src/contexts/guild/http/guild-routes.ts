import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import { DAY_MS } from '../../../platform/time/index.js'
import type { GuildApp } from '../app/guild-app.js'
import {
  BATTLE_POINTS_DIVISOR, GUILD_NAME_MAX, GUILD_NAME_MIN, INVITE_TTL_MS, LEADERBOARD_DEFAULT_LIMIT, MEMBER_CAP, NICKNAME_MAX, NICKNAME_MIN,
  POINTS_PER_HABIT_COMPLETION,
} from '../domain/rules.js'
import {
  AcceptBody, AvatarIdParams, CreatedView, CreateGuildBody, DeleteGuildBody, GuildIdParams, GuildListQuery, GuildListView, GuildView,
  InviteBody, InviteListView, InviteParams, InviteView, LeaderBody, LeaderboardQuery, LeaderboardView, MemberParams, MemberView,
  RankView, RequestorBody, RoleBody,
} from './schemas.js'
import { guildLinks, guildPath, guildSummaryView, guildView, invitePath, inviteView, memberView } from './views.js'
import { Type } from 'typebox'
import { links } from '../../../platform/http/links.js'

const tags = ['guilds']
const params = GuildIdParams
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404) }

// The rules the descriptions state, each shared by the routes it applies to.
const READ = 'Any signed-in player may read any guild. Refused with 404 `not-found` for an unknown guild.'
const ownedAvatar = (field: string) => `\`${field}\` must name an avatar the caller owns: 400 \`unknown-avatar\` when there is none, ` +
  '403 `not-owner` when it is someone else\'s.'
const leaderOnly = (field: string) => `${ownedAvatar(field)} That avatar must be the guild's leader: 403 \`guild-role-required\` ` +
  'otherwise. 404 `not-found` for an unknown guild.'
const NICKNAME_RULE = `A nickname is ${NICKNAME_MIN}–${NICKNAME_MAX} characters after trimming (400 \`invalid-nickname\`).`
const INVITE_TTL_DAYS = INVITE_TTL_MS / DAY_MS
const INVITE_SEEN_BY = "Only the invited avatar's owner and the guild's leader and officers may see or answer an invite " +
  '(403 `not-owner`); an unknown or expired invite, or an unknown guild, is 404 `not-found`.'
const RANK_RULE = `A guild gains ${POINTS_PER_HABIT_COMPLETION} point per habit completion by a member and the boss's experience ` +
  `reward / ${BATTLE_POINTS_DIVISOR} per battle won; rank 1 has the most points, the older guild first on a tie.`

export const guildRoutes: FastifyPluginAsyncTypebox<{ app: GuildApp }> = async (f, { app }) => {
  f.post('/guilds', {
    schema: {
      tags, operationId: 'createGuild', summary: 'Found a guild led by an avatar the caller owns',
      description: `The creator becomes its LEADER. ${ownedAvatar('creatorAvatarId')} A name is ${GUILD_NAME_MIN}–${GUILD_NAME_MAX} ` +
        'characters after trimming (400 `invalid-guild-name`) and unique ignoring case (409 `guild-name-taken`). ' +
        `${NICKNAME_RULE} An avatar belongs to at most one guild: 409 \`already-in-guild\` names the guild it is in. ` +
        "The creator's pending invites elsewhere are withdrawn. Emits `GuildCreated`.",
      body: CreateGuildBody, response: { 200: CreatedView, ...problemResponses(400, 401, 403, 409) },
    },
  }, async (req) => {
    const g = await app.create(req.principal, req.body)
    return { id: g.id, _links: guildLinks(g.id) }
  })

  f.get('/guilds', {
    schema: {
      tags, operationId: 'listGuilds', summary: 'List guilds, oldest first, by name or by member',
      description: '`name` keeps the guilds whose name contains it (ignoring case); `memberId` the guild that avatar belongs to ' +
        '(none or one; 400 `unknown-avatar` when no such avatar exists). In pages of `limit` (`next` names the following page); a cursor ' +
        'that names no guild is 400 `invalid-cursor`.',
      querystring: GuildListQuery, response: { 200: GuildListView, ...problemResponses(400, 401) },
    },
  }, async (req) => {
    const page = await app.list(req.query)
    return { items: page.items.map(guildSummaryView), next: page.next }
  })

  f.get('/guilds/leaderboard', {
    schema: {
      tags, operationId: 'getGuildLeaderboard', summary: 'Get the guild leaderboard, most points first',
      description: `The first \`limit\` guilds (default ${LEADERBOARD_DEFAULT_LIMIT}) by global rank. ${RANK_RULE}`,
      querystring: LeaderboardQuery, response: { 200: LeaderboardView, ...problemResponses(400, 401) },
    },
  }, async (req) => ({
    _embedded: { guilds: (await app.leaderboard(req.query.limit)).map(guildSummaryView) },
    _links: links({ self: `/api/v1/guilds/leaderboard?limit=${req.query.limit}` }),
  }))

  f.get('/guilds/:id', {
    schema: { tags, operationId: 'getGuild', summary: 'Get a guild with its members, points and rank', description: READ, params,
      response: { 200: GuildView, ...problemResponses(401, 404) } },
  }, async (req) => guildView(await app.get(req.params.id)))

  f.delete('/guilds/:id', {
    schema: {
      tags, operationId: 'deleteGuild', summary: 'Delete a guild (leader only)',
      description: `Without a body (or without \`requestorId\`) the caller must own the leader's avatar. ${leaderOnly('requestorId')} ` +
        'Its invites and any battle in progress go with it. Emits `GuildDisbanded`.',
      params, body: DeleteGuildBody, response: changes,
    },
    // The contract sends no body; an absent one means "as the leader".
    preValidation: async (req) => { req.body ??= {} },
  }, async (req, reply) => {
    await app.delete(req.principal, req.params.id, req.body.requestorId)
    return noContent(reply)
  })

  f.get('/guilds/:id/members', {
    schema: { tags, operationId: 'listGuildMembers', summary: "List a guild's members, longest-serving first", description: READ, params,
      response: { 200: Type.Array(MemberView), ...problemResponses(401, 404) } },
  }, async (req) => (await app.members(req.params.id)).map(memberView))

  f.post('/guilds/:id/invites', {
    schema: {
      tags, operationId: 'sendGuildInvite', summary: 'Invite an avatar to a guild (leader and officers)',
      description: `${ownedAvatar('requestorId')} That avatar must be the guild's leader or an officer (403 \`guild-role-required\`). ` +
        'The target must exist (400 `unknown-avatar`) and not be a member (400 `already-member`); one pending invite per target ' +
        `(409 \`invite-pending\`). An invite expires after ${INVITE_TTL_DAYS} days. The Location header names the invite. ` +
        '404 `not-found` for an unknown guild. Emits `InviteSent` (the target\'s owner is notified).',
      params, body: InviteBody, response: { 204: NoContent, ...problemResponses(400, 401, 403, 404, 409) },
    },
  }, async (req, reply) => {
    const invite = await app.invite(req.principal, req.params.id, req.body)
    reply.header('location', invitePath(invite.guildId, invite.id))
    return noContent(reply)
  })

  f.get('/guilds/:id/invites', {
    schema: {
      tags, operationId: 'listGuildInvites', summary: "List a guild's pending invites (leader and officers)",
      description: "The caller must own the guild's leader or an officer (403 `guild-role-required`); 404 `not-found` for an " +
        'unknown guild. Expired invites are not listed.',
      params, response: { 200: InviteListView, ...problemResponses(401, 403, 404) },
    },
  }, async (req) => ({ items: (await app.invitesOfGuild(req.principal, req.params.id)).map(inviteView) }))

  f.get('/guilds/:id/invites/:inviteId', {
    schema: { tags, operationId: 'getGuildInvite', summary: 'Get a pending guild invite', description: INVITE_SEEN_BY,
      params: InviteParams, response: { 200: InviteView, ...problemResponses(401, 403, 404) } },
  }, async (req) => inviteView(await app.getInvite(req.principal, req.params.id, req.params.inviteId)))

  f.delete('/guilds/:id/invites/:inviteId', {
    schema: {
      tags, operationId: 'withdrawGuildInvite', summary: 'Withdraw or decline a pending guild invite',
      description: "The guild's leader and officers withdraw an invite; the invited avatar's owner declines it. " +
        `${INVITE_SEEN_BY} Emits \`InviteWithdrawn\`.`,
      params: InviteParams, response: changes,
    },
  }, async (req, reply) => {
    await app.withdrawInvite(req.principal, req.params.id, req.params.inviteId)
    return noContent(reply)
  })

  f.post('/guilds/:id/invites/:inviteId/accept', {
    schema: {
      tags, operationId: 'acceptGuildInvite', summary: 'Accept a guild invite: the invited avatar joins as MEMBER',
      description: `${ownedAvatar('avatarId')} It must be the invite's target (400 \`not-invite-target\`) and the invite still ` +
        'pending (400 `invite-expired`; 404 `not-found` for an unknown invite or guild). Refused with 400 `already-member` for a ' +
        `member of this guild, 409 \`already-in-guild\` for a member of another, 400 \`guild-full\` at ${MEMBER_CAP} members. ` +
        `${NICKNAME_RULE} It is unique in the guild ignoring case (409 \`nickname-taken\`). ` +
        "The avatar's other pending invites are withdrawn. Emits `MemberJoined`.",
      params: InviteParams, body: AcceptBody, response: { ...changes, ...problemResponses(409) },
    },
  }, async (req, reply) => {
    await app.accept(req.principal, req.params.id, req.params.inviteId, req.body)
    return noContent(reply)
  })

  f.delete('/guilds/:id/members/:memberId', {
    schema: {
      tags, operationId: 'removeGuildMember', summary: 'Remove a member from a guild (leader only)',
      description: `${leaderOnly('requestorId')} The member must be one (400 \`not-a-member\`) and not the leader ` +
        '(400 `leader-cannot-be-removed`). Emits `MemberLeft` (reason REMOVED).',
      params: MemberParams, body: RequestorBody, response: changes,
    },
  }, async (req, reply) => {
    await app.removeMember(req.principal, req.params.id, req.params.memberId, req.body.requestorId)
    return noContent(reply)
  })

  f.post('/guilds/:id/members/:memberId/leave', {
    schema: {
      tags, operationId: 'leaveGuild', summary: 'Leave a guild with a member the caller owns',
      description: `${ownedAvatar('memberId')} It must be a member (400 \`not-a-member\`); 404 \`not-found\` for an unknown guild. ` +
        'A leaving leader hands leadership to the longest-serving officer, else the longest-serving member; the last member ' +
        'leaving deletes the guild. Emits `MemberLeft` (reason LEFT), and `MemberRolesChanged` or `GuildDisbanded` as it happens.',
      params: MemberParams, response: changes,
    },
  }, async (req, reply) => {
    await app.leave(req.principal, req.params.id, req.params.memberId)
    return noContent(reply)
  })

  f.patch('/guilds/:id/members/:memberId/role', {
    schema: {
      tags, operationId: 'updateGuildMemberRole', summary: 'Make a guild member OFFICER or MEMBER (leader only)',
      description: `${leaderOnly('requestorId')} The member must be one (400 \`not-a-member\`); the leader cannot change their ` +
        'own role (400 `own-role`: transfer leadership instead). Emits `MemberRolesChanged` when the role changed.',
      params: MemberParams, body: RoleBody, response: changes,
    },
  }, async (req, reply) => {
    await app.changeRole(req.principal, req.params.id, req.params.memberId, req.body)
    return noContent(reply)
  })

  f.post('/guilds/:id/leader', {
    schema: {
      tags, operationId: 'transferGuildLeadership', summary: 'Hand guild leadership to another member (leader only)',
      description: `${leaderOnly('requestorId')} \`avatarId\` must be a member (400 \`not-a-member\`); the old leader becomes ` +
        'an officer (naming the leader changes nothing). Emits `MemberRolesChanged`.',
      params, body: LeaderBody, response: changes,
    },
  }, async (req, reply) => {
    await app.transferLeadership(req.principal, req.params.id, req.body)
    return noContent(reply)
  })

  f.get('/guilds/:id/rank', {
    schema: { tags, operationId: 'getGuildRank', summary: "Get a guild's global rank", description: `${READ} ${RANK_RULE}`, params,
      response: { 200: RankView, ...problemResponses(401, 404) } },
  }, async (req) => ({ globalRank: await app.rank(req.params.id), _links: links({ self: `${guildPath(req.params.id)}/rank`, guild: guildPath(req.params.id) }) }))

  f.get('/avatars/:id/invites', {
    schema: {
      tags, operationId: 'listAvatarGuildInvites', summary: "List an avatar's pending guild invites (its owner only)",
      description: "Only the avatar's owner may list them: 403 `not-owner` for anyone else, 404 `not-found` for an unknown avatar. " +
        'Expired invites are not listed.',
      params: AvatarIdParams, response: { 200: InviteListView, ...problemResponses(401, 403, 404) },
    },
  }, async (req) => ({ items: (await app.invitesOfAvatar(req.principal, req.params.id)).map(inviteView) }))
}
