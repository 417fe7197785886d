import { sql } from 'drizzle-orm'
import { expect } from 'vitest'
import type { TestApp } from './app.js'
import type { Player } from './players.js'

export interface Books {
  money: number
  /** Inventory item names, sorted. */
  items: string[]
}

/** The avatar's money and inventory: what every trade must keep in balance. */
export async function booksOf(app: TestApp, p: Player, avatarId = p.avatarId): Promise<Books> {
  const res = await app.inject({ url: `/api/v1/avatars/${avatarId}`, headers: p.auth })
  expect(res.statusCode, res.body).toBe(200)
  const a = res.json()
  return { money: a.money.amount, items: a.inventory.items.map((i: { name: string }) => i.name).sort() }
}

/** The player's marketplace id (idempotent provisioning). */
export async function marketplaceOf(app: TestApp, p: Player, avatarId = p.avatarId): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/marketplaces', headers: p.auth, payload: { avatarId } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().id
}

export const buy = (app: TestApp, p: Player, marketplaceId: string, name: string, query = '') =>
  app.inject({ method: 'POST', url: `/api/v1/marketplaces/${marketplaceId}/items/${encodeURIComponent(name)}/buy${query}`, headers: p.auth })

export const sell = (app: TestApp, p: Player, marketplaceId: string, name: string) =>
  app.inject({ method: 'POST', url: `/api/v1/marketplaces/${marketplaceId}/sold-items/${encodeURIComponent(name)}/sell`, headers: p.auth })

/** Adds an item straight to the inventory (the open economy lets an owner do so). */
export async function giveItem(app: TestApp, p: Player, item: Record<string, unknown>): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/avatars/${p.avatarId}/inventory/items`, headers: p.auth, payload: item })
  expect(res.statusCode, res.body).toBe(204)
}

/** Every saga run of an avatar with the item it was for, oldest first, read under the API. */
export async function sagaRuns(app: TestApp, avatarId: string): Promise<{ state: string; itemName: string }[]> {
  const res = await app.database.db.execute(sql`select state, item_name as "itemName" from marketplace.sagas where avatar_id = ${avatarId} order by created_at, id`)
  return (res as unknown as { rows: { state: string; itemName: string }[] }).rows
}

/** The state of every saga run of an avatar, oldest first, read under the API. */
export async function sagaStates(app: TestApp, avatarId: string): Promise<string[]> {
  const res = await app.database.db.execute(sql`select state from marketplace.sagas where avatar_id = ${avatarId} order by created_at, id`)
  return (res as unknown as { rows: { state: string }[] }).rows.map((r) => r.state)
}
