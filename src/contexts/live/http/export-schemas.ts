/**
 * The live context's part of a player's export (DESIGN §9.4): the avatar's inbox, every
 * notification still kept, oldest first. The edge composes the export document's schema from it
 * (through client.ts).
 */
import { Type, type Static } from 'typebox'
import { Nullable } from '../../../platform/http/schemas.js'
import { NotificationView } from './schemas.js'

export const NotificationExport = NotificationView
export type NotificationExport = Static<typeof NotificationExport>
export const NotificationExportPage = Type.Object({
  items: Type.Array(NotificationExport),
  next: Nullable(Type.String({ description: 'Cursor of the next (newer) page; null on the last' })),
})
