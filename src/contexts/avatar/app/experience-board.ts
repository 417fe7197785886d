/** The experience board page (DESIGN §9.5): the top, or the ranks around one avatar. */
import type { Queryable } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import { windowAround, windowAtTop } from '../domain/experience-board.js'
import { experienceBoardRepo, type BoardRow } from '../store/experience-board.js'

export interface BoardEntry extends BoardRow {
  rank: number
}

export interface BoardPage {
  items: BoardEntry[]
  /** Avatars on the board. */
  total: number
}

/** The first `limit` ranks, or (with `around`) the `limit` ranks centred on that avatar; 404 for an unknown one. */
export async function experienceBoardPage(q: Queryable, limit: number, around?: string): Promise<BoardPage> {
  if (around === undefined) {
    const { rows, total } = await experienceBoardRepo.top(q, limit)
    const { first } = windowAtTop(total, limit)
    return { items: rows.map((r, i) => ({ rank: first + i, ...r })), total }
  }
  const found = await experienceBoardRepo.around(q, around, limit - 1)
  if (!found) throw new NotFound('Avatar', around)
  const { rank, total, me, ahead, behind } = found
  const { first, last } = windowAround(rank, total, limit)
  const before = ahead.slice(ahead.length - (rank - first)).map((r, i) => ({ rank: first + i, ...r }))
  const after = behind.slice(0, last - rank).map((r, i) => ({ rank: rank + 1 + i, ...r }))
  return { items: [...before, { rank, ...me }, ...after], total }
}
