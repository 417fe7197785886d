/**
 * The export document's schema (DESIGN §9.4), composed from the parts each context defines and
 * serves through its port: it is generated from them, so it cannot drift from what they write.
 * Published at `/schemas/export-v1.json`.
 */
import { Type, type Static } from 'typebox'
import { AvatarExport, LeagueExport } from '../../avatar/client.js'
import { ChatMessagesExport, GuildMembershipExport } from '../../guild/client.js'
import { NotificationExport } from '../../live/client.js'
import { TradeExport } from '../../marketplace/client.js'
import { QuestsExport } from '../../quest/client.js'
import { HabitRecordExport, SettingsExport } from '../../tracking/client.js'
import { EXPORT_FORMAT, EXPORT_SCHEMA_PATH, EXPORT_VERSION } from '../domain/rules.js'


const AvatarRecordExport = Type.Object({
  avatar: AvatarExport,
  settings: SettingsExport,
  habits: Type.Array(HabitRecordExport, { description: 'Every habit with its whole history' }),
  quests: QuestsExport,
  guild: GuildMembershipExport,
  chatMessages: ChatMessagesExport,
  purchases: TradeExport.properties.purchases,
  sales: TradeExport.properties.sales,
  league: LeagueExport,
  notifications: Type.Array(NotificationExport, { description: 'The inbox: every notification still kept, oldest first' }),
})

const ExportDocument = Type.Object({
  format: Type.Literal(EXPORT_FORMAT),
  version: Type.Literal(EXPORT_VERSION),
  exportedAt: Type.String({ format: 'date-time' }),
  user: Type.Object({ name: Type.String(), email: Type.String() }),
  avatars: Type.Array(AvatarRecordExport, { description: 'Every avatar of the account, oldest first' }),
})
type ExportDocument = Static<typeof ExportDocument>

/** The document's JSON Schema as published: plain JSON Schema (draft-07), with its own address. */
export const exportJsonSchema = (): Record<string, unknown> => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: EXPORT_SCHEMA_PATH,
  title: 'Questline export, version 1',
  description: 'Everything Questline holds of a player (GET /api/v1/me/export). POST /api/v1/avatars/{id}/import reads its habits back.',
  ...(JSON.parse(JSON.stringify(ExportDocument)) as Record<string, unknown>),
})
