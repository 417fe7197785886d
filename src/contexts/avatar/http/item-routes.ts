import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { IdempotencyHeaders, idempotencyKeyOf } from '../../../platform/http/idempotency.js'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { AvatarApp } from '../app/avatar-app.js'
import { freezesOf } from '../domain/avatar.js'
import { AvatarIdParams, ItemBody, ItemRefBody, ItemsView, ItemView, StreakFreezesView, UseItemBody } from './schemas.js'
import { equippedLinks, inventoryLinks } from './views.js'
import { Type } from 'typebox'
import { INVENTORY_CAPACITY, STREAK_FREEZES_MAX } from '../domain/rules.js'
import { KEYED, MINTS, OWNER_ONLY, READABLE } from './docs.js'

const tags = ['items']
const NOT_IN_INVENTORY = '400 `item-not-in-inventory` when no such item is in the inventory'
const params = AvatarIdParams
const headers = IdempotencyHeaders
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404) }
const keyedChanges = { ...changes, ...problemResponses(409) }

const UseItemView = Type.Object({
  health: Type.Object({ current: Type.Integer(), max: Type.Integer() }),
  mana: Type.Object({ amount: Type.Integer(), max: Type.Integer() }),
  streakFreezes: StreakFreezesView,
})

export const itemRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp }> = async (f, { app }) => {
  f.get('/avatars/:id/inventory', {
    schema: {
      tags, operationId: 'getInventory', summary: "Get the items in an avatar's inventory",
      description: `What it holds besides what is equipped, at most ${INVENTORY_CAPACITY} items. ${READABLE}`,
      params, response: { 200: ItemsView, ...problemResponses(401, 404) },
    },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { id: a.inventoryId, items: a.inventory, _links: inventoryLinks(a.id) }
  })

  f.post('/avatars/:id/inventory/items', {
    schema: {
      tags,
      operationId: 'addInventoryItem',
      summary: 'Add an item to the inventory',
      description: 'A consumable without `effect` restores HEALTH. Refused with 400 `inventory-full` when it holds ' +
        `${INVENTORY_CAPACITY} items already. ${OWNER_ONLY} ${MINTS} ${KEYED}`,
      params, headers, body: ItemBody, response: keyedChanges,
    },
  }, async (req, reply) => {
    const { effect, description = '', ...item } = req.body
    const added = { ...item, description, ...(item.type === 'CONSUMABLE' ? { effect: effect ?? 'HEALTH' } : {}) }
    await app.addItem(req.principal, req.params.id, added, idempotencyKeyOf(req))
    return noContent(reply)
  })

  f.delete('/avatars/:id/inventory/items', {
    schema: {
      tags,
      operationId: 'removeInventoryItem',
      summary: 'Remove one matching item (by type and name) from the inventory',
      description: `The first item of that type and name goes; an equipped one is not in the inventory. Refused with ${NOT_IN_INVENTORY}. ` +
        `${OWNER_ONLY} ${KEYED}`,
      params, headers, body: ItemRefBody, response: keyedChanges,
    },
  }, async (req, reply) => {
    await app.removeItem(req.principal, req.params.id, { type: req.body.type, name: req.body.name }, idempotencyKeyOf(req))
    return noContent(reply)
  })

  f.post('/avatars/:id/inventory/items/take', {
    schema: {
      tags,
      operationId: 'takeInventoryItem',
      summary: 'Take one item out of the inventory by name and answer it',
      description: 'What a sale does to the inventory: the first inventory item of that name is removed and returned. ' +
        'An item that is only equipped is refused (`item-equipped`); unequip it first. ' +
        `Otherwise refused with ${NOT_IN_INVENTORY}. ${OWNER_ONLY} ${KEYED}`,
      params, headers, body: UseItemBody, response: { 200: ItemView, ...problemResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => app.takeItem(req.principal, req.params.id, req.body.name, idempotencyKeyOf(req)))

  f.post('/avatars/:id/inventory/items/equip', {
    schema: {
      tags,
      operationId: 'equipItem',
      summary: 'Equip a weapon or armor from the inventory',
      description: 'The item moves from the inventory to its slot (one WEAPON, one ARMOR); what held the slot goes back to the ' +
        `inventory. Refused with ${NOT_IN_INVENTORY} (matched by type and name) and 400 \`item-not-equippable\` for a consumable. ${OWNER_ONLY}`,
      params, body: ItemRefBody, response: changes,
    },
  }, async (req, reply) => {
    await app.equip(req.principal, req.params.id, { type: req.body.type, name: req.body.name })
    return noContent(reply)
  })

  f.post('/avatars/:id/inventory/items/unequip', {
    schema: {
      tags,
      operationId: 'unequipItem',
      summary: 'Move an equipped item back to the inventory',
      description: 'Refused with 400 `item-not-equipped` when no item of that type and name is equipped, and 400 `inventory-full` ' +
        `when the inventory holds ${INVENTORY_CAPACITY} items already. ${OWNER_ONLY}`,
      params, body: ItemRefBody, response: changes,
    },
  }, async (req, reply) => {
    await app.unequip(req.principal, req.params.id, { type: req.body.type, name: req.body.name })
    return noContent(reply)
  })

  f.post('/avatars/:id/inventory/items/use', {
    schema: {
      tags,
      operationId: 'useItem',
      summary: 'Use up a consumable: restore health or mana, or add a streak freeze',
      description: 'It restores health (or mana, for an `effect` of `MANA`) by its power, up to the maximum. ' +
        'A consumable whose `effect` is `FREEZE` (the Ice Crystal) adds one streak freeze, whatever its power; ' +
        `with the most an avatar may hold (${STREAK_FREEZES_MAX}) it is refused (\`freezes-full\`) and kept. ` +
        `Refused with 400 \`item-not-usable\` for an inventory item that is not a consumable, ${NOT_IN_INVENTORY}. ${OWNER_ONLY}`,
      params, body: UseItemBody,
      response: { 200: UseItemView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const a = await app.useItem(req.principal, req.params.id, req.body.name)
    return { health: { current: a.health, max: a.maxHealth }, mana: { amount: a.mana, max: a.maxMana }, streakFreezes: freezesOf(a) }
  })

  f.get('/avatars/:id/equipped-items', {
    schema: {
      tags, operationId: 'getEquippedItems', summary: "Get an avatar's equipped weapon and armor",
      description: `At most one item per slot (WEAPON, ARMOR). ${READABLE}`,
      params, response: { 200: ItemsView, ...problemResponses(401, 404) },
    },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { id: a.equipmentId, items: a.equipped, _links: equippedLinks(a.id) }
  })
}
