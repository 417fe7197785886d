import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { IdempotencyHeaders, idempotencyKeyOf } from '../../../platform/http/idempotency.js'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { AvatarApp } from '../app/avatar-app.js'
import { freezesOf } from '../domain/avatar.js'
import { AvatarIdParams, ItemBody, ItemRefBody, ItemsView, ItemView, StreakFreezesView, UseItemBody } from './schemas.js'
import { equippedLinks, inventoryLinks } from './views.js'
import { Type } from 'typebox'

const tags = ['avatars']
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
    schema: { tags, params, response: { 200: ItemsView, ...problemResponses(401, 404) } },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { id: a.inventoryId, items: a.inventory, _links: inventoryLinks(a.id) }
  })

  f.post('/avatars/:id/inventory/items', {
    schema: { tags, summary: 'Add an item to the inventory', params, headers, body: ItemBody, response: keyedChanges },
  }, async (req, reply) => {
    const { effect, description = '', ...item } = req.body
    const added = { ...item, description, ...(item.type === 'CONSUMABLE' ? { effect: effect ?? 'HEALTH' } : {}) }
    await app.addItem(req.principal, req.params.id, added, idempotencyKeyOf(req))
    return noContent(reply)
  })

  f.delete('/avatars/:id/inventory/items', {
    schema: { tags, summary: 'Remove one matching item (by type and name) from the inventory', params, headers, body: ItemRefBody, response: keyedChanges },
  }, async (req, reply) => {
    await app.removeItem(req.principal, req.params.id, { type: req.body.type, name: req.body.name }, idempotencyKeyOf(req))
    return noContent(reply)
  })

  f.post('/avatars/:id/inventory/items/take', {
    schema: {
      tags,
      summary: 'Take one item out of the inventory by name and answer it',
      description: 'What a sale does to the inventory: the first inventory item of that name is removed and returned. ' +
        'An item that is only equipped is refused (`item-equipped`); unequip it first.',
      params, headers, body: UseItemBody, response: { 200: ItemView, ...problemResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => app.takeItem(req.principal, req.params.id, req.body.name, idempotencyKeyOf(req)))

  f.post('/avatars/:id/inventory/items/equip', {
    schema: { tags, summary: 'Equip a weapon or armor from the inventory', params, body: ItemRefBody, response: changes },
  }, async (req, reply) => {
    await app.equip(req.principal, req.params.id, { type: req.body.type, name: req.body.name })
    return noContent(reply)
  })

  f.post('/avatars/:id/inventory/items/unequip', {
    schema: { tags, summary: 'Move an equipped item back to the inventory', params, body: ItemRefBody, response: changes },
  }, async (req, reply) => {
    await app.unequip(req.principal, req.params.id, { type: req.body.type, name: req.body.name })
    return noContent(reply)
  })

  f.post('/avatars/:id/inventory/items/use', {
    schema: {
      tags, summary: 'Use up a consumable: it restores health (or mana) by its power, or adds a streak freeze',
      description: 'A consumable whose `effect` is `FREEZE` (the Ice Crystal) adds one streak freeze, whatever its power; ' +
        'with the most an avatar may hold it is refused (`freezes-full`) and kept.',
      params, body: UseItemBody,
      response: { 200: UseItemView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const a = await app.useItem(req.principal, req.params.id, req.body.name)
    return { health: { current: a.health, max: a.maxHealth }, mana: { amount: a.mana, max: a.maxMana }, streakFreezes: freezesOf(a) }
  })

  f.get('/avatars/:id/equipped-items', {
    schema: { tags, params, response: { 200: ItemsView, ...problemResponses(401, 404) } },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { id: a.equipmentId, items: a.equipped, _links: equippedLinks(a.id) }
  })
}
