/**
 * The avatar's part of a player's export (DESIGN §9.4): each avatar of the account as the API shows
 * it, without links. The edge composes the export document's schema from it (through client.ts).
 */
import { Type, type Static } from 'typebox'
import type { Avatar } from '../domain/avatar.js'
import { AvatarView } from './schemas.js'
import { avatarView } from './views.js'

const { _links: _omitted, ...exported } = AvatarView.properties
export const AvatarExport = Type.Object(exported)
export type AvatarExport = Static<typeof AvatarExport>

export const AvatarExportList = Type.Object({ items: Type.Array(AvatarExport) })

export function avatarExport(a: Avatar): AvatarExport {
  const { _links: _omit, ...view } = avatarView(a)
  return view
}
