import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { GuildApp } from '../app/guild-app.js'
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
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404, 409) }

export const guildRoutes: FastifyPluginAsyncTypebox<{ app: GuildApp }> = async (f, { app }) => {
  f.post('/guilds', {
    schema: { tags, summary: 'Found a guild; the creator (an avatar the caller owns) becomes its LEADER', body: CreateGuildBody,
      response: { 200: CreatedView, ...problemResponses(400, 401, 403, 409) } },
  }, async (req) => {
    const g = await app.create(req.principal, req.body)
    return { id: g.id, _links: guildLinks(g.id) }
  })

  f.get('/guilds', {
    schema: { tags, summary: 'List guilds, oldest first, optionally by name and by member (the guild an avatar belongs to)', querystring: GuildListQuery,
      response: { 200: GuildListView, ...problemResponses(400, 401) } },
  }, async (req) => {
    const page = await app.list(req.query)
    return { items: page.items.map(guildSummaryView), next: page.next }
  })

  f.get('/guilds/leaderboard', {
    schema: { tags, summary: 'Guilds by global rank: most points first, older guild first on a tie', querystring: LeaderboardQuery,
      response: { 200: LeaderboardView, ...problemResponses(400, 401) } },
  }, async (req) => ({
    _embedded: { guilds: (await app.leaderboard(req.query.limit)).map(guildSummaryView) },
    _links: links({ self: `/api/v1/guilds/leaderboard?limit=${req.query.limit}` }),
  }))

  f.get('/guilds/:id', { schema: { tags, params, response: { 200: GuildView, ...problemResponses(401, 404) } } },
    async (req) => guildView(await app.get(req.params.id)))

  f.delete('/guilds/:id', {
    schema: { tags, summary: 'Delete the guild (leader only), its invites and any battle in progress', params, body: DeleteGuildBody, response: changes },
    // The contract sends no body; an absent one means "as the leader".
    preValidation: async (req) => { req.body ??= {} },
  }, async (req, reply) => {
    await app.delete(req.principal, req.params.id, req.body.requestorId)
    return noContent(reply)
  })

  f.get('/guilds/:id/members', {
    schema: { tags, summary: 'Members, longest-serving first', params, response: { 200: Type.Array(MemberView), ...problemResponses(401, 404) } },
  }, async (req) => (await app.members(req.params.id)).map(memberView))

  f.post('/guilds/:id/invites', {
    schema: { tags, summary: 'Invite an avatar (leader and officers); the Location header names the invite', params, body: InviteBody,
      response: { 204: NoContent, ...problemResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    const invite = await app.invite(req.principal, req.params.id, req.body)
    reply.header('location', invitePath(invite.guildId, invite.id))
    return noContent(reply)
  })

  f.get('/guilds/:id/invites', {
    schema: { tags, summary: "The guild's pending invites (leader and officers)", params,
      response: { 200: InviteListView, ...problemResponses(401, 403, 404) } },
  }, async (req) => ({ items: (await app.invitesOfGuild(req.principal, req.params.id)).map(inviteView) }))

  f.get('/guilds/:id/invites/:inviteId', {
    schema: { tags, summary: 'A pending invite (its target and the guild\'s leader and officers)', params: InviteParams,
      response: { 200: InviteView, ...problemResponses(401, 403, 404) } },
  }, async (req) => inviteView(await app.getInvite(req.principal, req.params.id, req.params.inviteId)))

  f.delete('/guilds/:id/invites/:inviteId', {
    schema: { tags, summary: 'Withdraw (leader, officers) or decline (the invited avatar\'s owner) an invite', params: InviteParams, response: changes },
  }, async (req, reply) => {
    await app.withdrawInvite(req.principal, req.params.id, req.params.inviteId)
    return noContent(reply)
  })

  f.post('/guilds/:id/invites/:inviteId/accept', {
    schema: { tags, summary: 'Accept an invite: the invited avatar joins as MEMBER', params: InviteParams, body: AcceptBody, response: changes },
  }, async (req, reply) => {
    await app.accept(req.principal, req.params.id, req.params.inviteId, req.body)
    return noContent(reply)
  })

  f.delete('/guilds/:id/members/:memberId', {
    schema: { tags, summary: 'Remove a member (leader only)', params: MemberParams, body: RequestorBody, response: changes },
  }, async (req, reply) => {
    await app.removeMember(req.principal, req.params.id, req.params.memberId, req.body.requestorId)
    return noContent(reply)
  })

  f.post('/guilds/:id/members/:memberId/leave', {
    schema: { tags, summary: 'Leave the guild (the member\'s owner). A leaving leader hands over; the last member leaving deletes the guild',
      params: MemberParams, response: changes },
  }, async (req, reply) => {
    await app.leave(req.principal, req.params.id, req.params.memberId)
    return noContent(reply)
  })

  f.patch('/guilds/:id/members/:memberId/role', {
    schema: { tags, summary: 'Make a member OFFICER or MEMBER (leader only)', params: MemberParams, body: RoleBody, response: changes },
  }, async (req, reply) => {
    await app.changeRole(req.principal, req.params.id, req.params.memberId, req.body)
    return noContent(reply)
  })

  f.post('/guilds/:id/leader', {
    schema: { tags, summary: 'Hand leadership to another member (leader only); the old leader becomes an officer', params, body: LeaderBody, response: changes },
  }, async (req, reply) => {
    await app.transferLeadership(req.principal, req.params.id, req.body)
    return noContent(reply)
  })

  f.get('/guilds/:id/rank', { schema: { tags, params, response: { 200: RankView, ...problemResponses(401, 404) } } },
    async (req) => ({ globalRank: await app.rank(req.params.id), _links: links({ self: `${guildPath(req.params.id)}/rank`, guild: guildPath(req.params.id) }) }))

  f.get('/avatars/:id/invites', {
    schema: { tags, summary: "An avatar's pending guild invites (its owner only)", params: AvatarIdParams,
      response: { 200: InviteListView, ...problemResponses(401, 403, 404) } },
  }, async (req) => ({ items: (await app.invitesOfAvatar(req.principal, req.params.id)).map(inviteView) }))
}
