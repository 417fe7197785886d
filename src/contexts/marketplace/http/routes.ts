import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { MarketplaceApp } from '../app/marketplace-app.js'
import {
  BuyQuery, FindQuery, ItemParams, ItemsQuery, MarketplaceParams, MarketplaceView, OpenBody, ShopItemView, SoldItemsQuery,
  SoldItemView,
} from './schemas.js'
import { marketplacePath, marketplaceView, shopItemDetail, shopItemView, soldItemDetail, soldItemView } from './views.js'

const tags = ['marketplaces']
const reads = problemResponses(400, 401, 403, 404)
const trades = { 204: NoContent, ...problemResponses(400, 401, 403, 404, 502) }

export const marketplaceRoutes: FastifyPluginAsyncTypebox<{ app: MarketplaceApp }> = async (f, { app }) => {
  f.post('/marketplaces', {
    schema: {
      tags, summary: "Provision the avatar's marketplace (idempotent)",
      description: 'Every avatar gets one when it is made; for an avatar that has one, this answers that one.',
      body: OpenBody, response: { 200: MarketplaceView, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => marketplaceView(await app.open(req.principal, req.body.avatarId)))

  f.get('/marketplaces', {
    schema: { tags, summary: "Find an avatar's marketplace (its owner only)", querystring: FindQuery, response: { 200: MarketplaceView, ...reads } },
  }, async (req) => marketplaceView(await app.ofAvatar(req.principal, req.query.avatarId)))

  f.get('/marketplaces/:marketplaceId', {
    schema: { tags, summary: 'A marketplace with its items on sale', params: MarketplaceParams, response: { 200: MarketplaceView, ...reads } },
  }, async (req) => marketplaceView(await app.get(req.principal, req.params.marketplaceId)))

  f.get('/marketplaces/:marketplaceId/items', {
    schema: {
      tags, summary: 'The items on sale, optionally of one type', params: MarketplaceParams, querystring: ItemsQuery,
      response: { 200: Type.Array(ShopItemView), ...reads },
    },
  }, async (req) => (await app.items(req.principal, req.params.marketplaceId, req.query.type)).map(shopItemView))

  f.get('/marketplaces/:marketplaceId/items/:itemName', {
    schema: { tags, summary: 'One item on sale', params: ItemParams, response: { 200: ShopItemView, ...reads } },
  }, async (req) => shopItemDetail(req.params.marketplaceId, await app.item(req.principal, req.params.marketplaceId, req.params.itemName)))

  f.post('/marketplaces/:marketplaceId/items/:itemName/buy', {
    schema: {
      tags, summary: 'Buy an item: its price is taken from the wallet and it is added to the inventory',
      description: 'Runs as a saga with the avatar service. 400: `insufficient-funds`, `level-too-low`, `inventory-full`; ' +
        '502 `avatar-unavailable` when the avatar service failed on the way (what was applied is undone).',
      params: ItemParams, querystring: BuyQuery, response: trades,
    },
  }, async (req, reply) => {
    await app.buy(req.principal, req.params.marketplaceId, req.params.itemName, req.query.currentLevel)
    return noContent(reply)
  })

  f.get('/marketplaces/:marketplaceId/sold-items', {
    schema: {
      tags, summary: 'Items the avatar sold, newest first, with the price paid',
      description: 'Pages of `limit` (default 50); a `Link: <…>; rel="next"` header names the next page.',
      params: MarketplaceParams, querystring: SoldItemsQuery, response: { 200: Type.Array(SoldItemView), ...reads },
    },
  }, async (req, reply) => {
    const { limit } = req.query
    const page = await app.soldItems(req.principal, req.params.marketplaceId, req.query)
    if (page.next) reply.header('link', `<${marketplacePath(req.params.marketplaceId)}/sold-items?limit=${limit}&cursor=${page.next}>; rel="next"`)
    return page.items.map(soldItemView)
  })

  f.get('/marketplaces/:marketplaceId/sold-items/:itemName', {
    schema: { tags, summary: 'The latest sale of an item of that name', params: ItemParams, response: { 200: SoldItemView, ...reads } },
  }, async (req) => soldItemDetail(req.params.marketplaceId, await app.soldItem(req.principal, req.params.marketplaceId, req.params.itemName)))

  f.post('/marketplaces/:marketplaceId/sold-items/:itemName/sell', {
    schema: {
      tags, summary: 'Sell an inventory item: it leaves the inventory, the wallet is paid, and it is listed as sold',
      description: 'Pays half the catalog price (rounded down, at least 1), or the power of an item the catalog does not sell. ' +
        'Runs as a saga with the avatar service. 400: `item-not-in-inventory`, `item-equipped`; 404 for a name neither owned nor sold here; ' +
        '502 `avatar-unavailable` when the avatar service failed on the way (what was applied is undone).',
      params: ItemParams, response: trades,
    },
  }, async (req, reply) => {
    await app.sell(req.principal, req.params.marketplaceId, req.params.itemName)
    return noContent(reply)
  })
}
