/**
 * The port other contexts use to ask the guild context about membership. In-process here; an
 * HTTP adapter joins it when contexts run as separate services.
 */
import type { GuildApp } from './app/guild-app.js'

export interface GuildClient {
  /** The id of the guild the avatar belongs to, or null. */
  guildOf(avatarId: string): Promise<string | null>
  exists(guildId: string): Promise<boolean>
}

export const inProcessGuildClient = (app: GuildApp): GuildClient => ({
  guildOf: async (avatarId) => (await app.guildOf(avatarId)) ?? null,
  exists: (guildId) => app.exists(guildId),
})
