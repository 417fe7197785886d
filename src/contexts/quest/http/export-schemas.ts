/**
 * The quest's part of a player's export (DESIGN §9.4): the quests an avatar created (with their
 * habit entries) and those it joined (its progress), as the API shows them without links. The
 * edge composes the export document's schema from it (through client.ts).
 */
import { Type, type Static } from 'typebox'
import type { QuestsOfAvatar } from '../app/quest-app.js'
import { ParticipationView, QuestHabitsView, QuestView } from './schemas.js'
import { participationView, questHabitsView, questView } from './views.js'

const { _links: _q, ...questFields } = QuestView.properties
const { _links: _p, ...participationFields } = ParticipationView.properties
export const QuestsExport = Type.Object({
  created: Type.Array(Type.Object({ ...questFields, habits: QuestHabitsView.properties.habits }), { description: 'Quests the avatar created, with their habit entries' }),
  joined: Type.Array(Type.Object(participationFields), { description: "Quests the avatar joined: its window, progress and payout" }),
})
export type QuestsExport = Static<typeof QuestsExport>

export function questsExport({ created, joined }: QuestsOfAvatar): QuestsExport {
  return {
    created: created.map((q) => {
      const { _links, ...view } = questView(q)
      return { ...view, habits: questHabitsView(q).habits }
    }),
    joined: joined.map((p) => {
      const { _links, ...view } = participationView(p)
      return view
    }),
  }
}
