import type { GuildDraft } from '../../../contracts/events/guild.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import type { AggregateDefinition } from '../../../platform/writer/aggregate.js'
import type { Guild } from '../domain/guild.js'
import type { StoredGuild } from './guilds.js'
import { guilds } from './tables.js'

/** A guild as the platform writer versions it: its id and its membership's version (DESIGN §3), which its membership events carry. */
export type VersionedGuild = Pick<StoredGuild, 'id' | 'version'>

/**
 * The guild's row as the platform writer stores it: a change (a member joined, left or changed
 * role) writes the row one version on, with its events. The members are rows of their own table,
 * which the store writes (`guildRepo.saveMembers`) in the same transaction, under the guild's row
 * lock.
 *
 * Every other column of the row is fixed, so a save writes the version alone: the name and the
 * creation instant never change, the paging position is the database's, and the points change
 * without a version (`guildRepo.addPoints`, with the rank tallies, often, from consumers). Fixed,
 * the points can never be written back stale, whatever state the save was given and whichever lock
 * its caller holds.
 */
export const guildAggregate = (outbox: Outbox<GuildDraft>): AggregateDefinition<VersionedGuild, typeof guilds> => ({
  name: 'guild',
  table: guilds,
  key: guilds.id,
  version: guilds.version,
  fixed: [guilds.seq, guilds.name, guilds.points, guilds.createdAt],
  outbox,
  toState: ({ id, version }) => ({ id, version }),
  toRow: ({ id, version }) => ({ id, version }),
  keyOf: (g) => g.id,
})

/** The columns of a new guild's row besides its id and version, which the writer's `insert` is given (they are fixed). */
export const foundingColumns = (g: Guild) => ({ name: g.name, points: g.points, createdAt: g.createdAt })
