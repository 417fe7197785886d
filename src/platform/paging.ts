import { BadRequest } from './errors.js'

/** A page of a list the contract does not shape (DESIGN §4): `next` is the cursor of the page after, or null. */
export interface Page<T> {
  items: T[]
  next: string | null
}

/** What `?limit=&cursor=` asked for. */
export interface PageRequest {
  limit: number
  cursor?: string | undefined
}

/**
 * One page of a list read by keyset: the cursor names the last item of the page before (its
 * key); `positionOf` finds where that item stands in the list, `fetch` reads up to `count` items
 * after a position (from the start without one). A cursor that names nothing in the list is a 400
 * `invalid-cursor`, saying what it should name.
 */
export async function readPage<T, P>(asked: PageRequest, list: {
  /** What a cursor of this list names, e.g. 'a habit of this list'. */
  names: string
  positionOf: (cursor: string) => Promise<P | undefined>
  fetch: (after: P | undefined, count: number) => Promise<T[]>
  keyOf: (item: T) => string
}): Promise<Page<T>> {
  const after = asked.cursor === undefined ? undefined : await list.positionOf(asked.cursor)
  if (asked.cursor !== undefined && after === undefined) {
    throw new BadRequest(`The cursor does not name ${list.names}.`, 'invalid-cursor', [{ path: '/cursor', message: `must name ${list.names}` }])
  }
  // One more than asked tells whether a page follows.
  const rows = await list.fetch(after, asked.limit + 1)
  const items = rows.slice(0, asked.limit)
  return { items, next: rows.length > asked.limit ? list.keyOf(items[items.length - 1]!) : null }
}

/** Every page of a list in turn, from the first: `read` answers the page a cursor names (the first without one). */
export async function* pagesOf<T>(read: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T[]> {
  let cursor: string | undefined
  for (;;) {
    const page = await read(cursor)
    yield page.items
    if (page.next === null) return
    cursor = page.next
  }
}
