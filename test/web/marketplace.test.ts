/**
 * The marketplace screen: catalog with filter and level locks, a refused buy explained, a buy, and
 * the item equipped. Needs the marketplace API (/api/v1/marketplaces), which is built on another
 * branch: until it is merged this file fails.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { api, open, registerInUi, screenshots, startWorld, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(() => world?.close())

interface CatalogItem { name: string; type: string; price: number; requiredLevel: number; power: number }

test('a player buys a weapon, is told why another is refused, and equips it', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Shopper')
  // The catalog as the API has it, to choose items the test can reason about.
  const market = await (await api(world, me.token, 'POST', '/api/v1/marketplaces', { avatarId: me.userId })).json() as { id: string }
  const body = await (await api(world, me.token, 'GET', `/api/v1/marketplaces/${market.id}/items?type=WEAPON`)).json() as unknown
  const weapons = (Array.isArray(body) ? body : (body as { items?: CatalogItem[] }).items ?? Object.values((body as { _embedded: Record<string, CatalogItem[]> })._embedded)[0]!) as CatalogItem[]
  const affordable = weapons.filter((w) => w.requiredLevel <= 1 && w.price <= 100).sort((a, b) => a.price - b.price)[0]
  const tooDear = weapons.filter((w) => w.requiredLevel <= 1 && w.price > 100)[0]
  const locked = weapons.find((w) => w.requiredLevel > 1)
  expect(affordable, 'a level-1 weapon of at most 100 gold').toBeDefined()

  await open(page, 'Market')
  await page.getByRole('radio', { name: 'Weapons' }).check()
  const list = page.getByRole('list', { name: 'Items for sale' })
  await list.locator('.item-name', { hasText: affordable!.name }).first().waitFor()
  if (locked) await list.locator('.item', { hasText: locked.name }).getByText(`Level ${locked.requiredLevel}`).waitFor()
  await screenshots(page, 'market')

  if (tooDear) {
    await page.getByRole('button', { name: `Buy ${tooDear.name}` }).click()
    await page.getByText(`Not enough money for ${tooDear.name}.`).first().waitFor()
  }
  await page.getByRole('button', { name: `Buy ${affordable!.name}` }).click()
  await page.getByText(`Bought ${affordable!.name} for ${affordable!.price} gold.`).first().waitFor()
  await page.getByText(`You have ${100 - affordable!.price} gold`).waitFor()

  await open(page, 'Hero')
  await page.getByRole('button', { name: `Equip ${affordable!.name}` }).click()
  await page.getByRole('list', { name: 'Equipped items' }).locator('.item-name', { hasText: affordable!.name }).waitFor()
  await expect.poll(() => page.getByTestId('attack').textContent()).toBe(String(10 + affordable!.power))
})
