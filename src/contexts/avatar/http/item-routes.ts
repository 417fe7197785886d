import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { AvatarApp } from '../app/avatar-app.js'
import { AvatarIdParams, ItemBody, ItemRefBody, ItemsView, UseItemBody } from './schemas.js'
import { equippedLinks, inventoryLinks } from './views.js'
import { Type } from 'typebox'

const tags = ['avatars']
const params = AvatarIdParams
const changes = { 204: NoContent, ...problemResponses(400, 401, 403, 404) }

const UseItemView = Type.Object({
  health: Type.Object({ current: Type.Integer(), max: Type.Integer() }),
  mana: Type.Object({ amount: Type.Integer(), max: Type.Integer() }),
})

export const itemRoutes: FastifyPluginAsyncTypebox<{ app: AvatarApp }> = async (f, { app }) => {
  f.get('/avatars/:id/inventory', {
    schema: { tags, params, response: { 200: ItemsView, ...problemResponses(401, 404) } },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { id: a.inventoryId, items: a.inventory, _links: inventoryLinks(a.id) }
  })

  f.post('/avatars/:id/inventory/items', {
    schema: { tags, summary: 'Add an item to the inventory', params, body: ItemBody, response: changes },
  }, async (req, reply) => {
    const { effect, description = '', ...item } = req.body
    await app.addItem(req.principal, req.params.id, { ...item, description, ...(item.type === 'CONSUMABLE' ? { effect: effect ?? 'HEALTH' } : {}) })
    return noContent(reply)
  })

  f.delete('/avatars/:id/inventory/items', {
    schema: { tags, summary: 'Remove one matching item (by type and name) from the inventory', params, body: ItemRefBody, response: changes },
  }, async (req, reply) => {
    await app.removeItem(req.principal, req.params.id, { type: req.body.type, name: req.body.name })
    return noContent(reply)
  })

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
      tags, summary: 'Use up a consumable: it restores health (or mana) by its power', params, body: UseItemBody,
      response: { 200: UseItemView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const a = await app.useItem(req.principal, req.params.id, req.body.name)
    return { health: { current: a.health, max: a.maxHealth }, mana: { amount: a.mana, max: a.maxMana } }
  })

  f.get('/avatars/:id/equipped-items', {
    schema: { tags, params, response: { 200: ItemsView, ...problemResponses(401, 404) } },
  }, async (req) => {
    const a = await app.get(req.params.id)
    return { id: a.equipmentId, items: a.equipped, _links: equippedLinks(a.id) }
  })
}
