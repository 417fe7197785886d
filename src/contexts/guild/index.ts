import { AvatarDeleted, AvatarDied } from '../../contracts/events/avatar.js'
import { BattleWon, type GuildDraft } from '../../contracts/events/guild.js'
import { HabitAttended } from '../../contracts/events/tracking.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { on } from '../../platform/events/contract.js'
import { exactlyOnce, exactlyOnceInBatches } from '../../platform/events/inbox.js'
import { inboxPruning } from '../../platform/events/retention.js'
import { Outbox } from '../../platform/events/outbox.js'
import { contextModule } from '../../platform/module.js'
import type { AvatarClient } from '../avatar/client.js'
import { BattleApp } from './app/battle-app.js'
import { ChatApp } from './app/chat-app.js'
import { GuildApp } from './app/guild-app.js'
import { httpGuildClient, inProcessGuildClient, type GuildClient } from './client.js'
import { INVITE_EXPIRY_JOB_EVERY_MS } from './domain/rules.js'
import { battleRoutes } from './http/battle-routes.js'
import { guildExportRoutes } from './http/export-routes.js'
import { chatRoutes } from './http/chat-routes.js'
import { guildRoutes } from './http/guild-routes.js'
import { chatRepo } from './store/chat-messages.js'
import { chatMessages, inbox, outbox as outboxTable } from './store/tables.js'
import { daysBefore, pruning } from '../../platform/jobs/retention.js'
import { GUILD_PROBLEMS } from './http/problem-types.js'

export const EXPIRE_INVITES_JOB = 'guild.expire-invites'

/** The guild context: guilds, members, invites, points and rank, and boss battles. */
export const guildModule = contextModule({
  name: 'guild',
  problemTypes: GUILD_PROBLEMS,
  calls: ['avatar'],
  remotePort: httpGuildClient,
  routes: (h: { guilds: GuildApp; battles: BattleApp; chat: ChatApp }) => ({
    apiRoutes: async (f) => {
      await f.register(guildRoutes, { app: h.guilds })
      await f.register(battleRoutes, { app: h.battles })
      await f.register(chatRoutes, { app: h.chat })
    },
    internalRoutes: async (f) => {
      await f.register(guildExportRoutes, { app: h.guilds, chat: h.chat })
    },
  }),
  build(deps: { database: Database; clock: Clock; config: { chatRetentionDays: number }; ports: { avatar: AvatarClient } }) {
    const outbox = new Outbox<GuildDraft>('guild', outboxTable, deps.clock, deps.database)
    const appDeps = { database: deps.database, clock: deps.clock, avatars: deps.ports.avatar, outbox }
    const battles = new BattleApp(appDeps)
    const guilds = new GuildApp({ ...appDeps, callOffBattle: (tx, guildId, by) => battles.callOffWithGuild(tx, guildId, by) })
    const chat = new ChatApp(appDeps)
    const port: GuildClient = inProcessGuildClient(guilds, chat, deps.database)
    const leaveGuild = exactlyOnce(deps.database, inbox, deps.clock, (e: AvatarDeleted) => guilds.avatarDeleted(e.payload.avatarId))
    return {
      handlers: { guilds, battles, chat },
      outbox,
      port,
      consumers: [
        on(HabitAttended, exactlyOnceInBatches(deps.database, inbox, deps.clock, (events) =>
          guilds.awardHabitCompletions(events.map((e) => e.payload.avatarId)))),
        // A deleted avatar leaves its guild (once, by the inbox), and falls in its battle in progress (idempotent).
        on(AvatarDeleted, async (e) => {
          await leaveGuild(e)
          await battles.fighterOut(e.payload.avatarId)
        }),
        on(AvatarDied, (e) => battles.fighterOut(e.payload.avatarId)),
        // Its own event: a battle's write does not touch the guild's row (nor its rank tallies).
        on(BattleWon, exactlyOnce(deps.database, inbox, deps.clock, (e) => guilds.awardVictory(e.payload.guildId, e.payload.guildPoints))),
      ],
      jobs: [{ name: EXPIRE_INVITES_JOB, everyMs: INVITE_EXPIRY_JOB_EVERY_MS, run: async () => void (await guilds.expireInvites()) }],
      prune: [
        inboxPruning(deps.database, inbox),
        pruning(chatMessages, (h, limit) => chatRepo.pruneSome(deps.database.db, daysBefore(h.now, deps.config.chatRetentionDays), limit)),
      ],
    }
  },
})
