import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { NoContent, noContent, problemResponses } from '../../../platform/http/schemas.js'
import type { MarketplaceApp } from '../app/marketplace-app.js'
import { MIN_SELL_PRICE, SELL_PRICE_DIVISOR, SOLD_LIST_DEFAULT_LIMIT } from '../domain/rules.js'
import {
  BuyQuery, FindQuery, ItemParams, ItemsQuery, MarketplaceParams, MarketplaceView, OpenBody, ShopItemView, SoldItemsQuery,
  SoldItemView,
} from './schemas.js'
import { marketplacePath, marketplaceView, shopItemDetail, shopItemView, soldItemDetail, soldItemView } from './views.js'

const tags = ['marketplace']
const reads = problemResponses(400, 401, 403, 404)
const trades = { 204: NoContent, ...problemResponses(400, 401, 403, 404, 502) }

// The rules the descriptions state, each shared by the routes it applies to.
const PRIVATE = "A marketplace, with its sales, is private to its avatar's owner: 403 `not-owner` for anyone else; " +
  '404 `not-found` for an unknown marketplace.'
const SAGA = 'Runs as a saga with the avatar service: 502 `avatar-unavailable` when that service failed on the way ' +
  '(what was applied is undone, so no money or item is lost).'

export const marketplaceRoutes: FastifyPluginAsyncTypebox<{ app: MarketplaceApp }> = async (f, { app }) => {
  f.post('/marketplaces', {
    schema: {
      tags, operationId: 'openMarketplace', summary: "Provision an avatar's marketplace (idempotent)",
      description: 'Every avatar gets one when it is made; for an avatar that has one, this answers that one. ' +
        '`avatarId` must name an avatar the caller owns: 400 `unknown-avatar` when there is none, 403 `not-owner` when it is ' +
        'someone else\'s.',
      body: OpenBody, response: { 200: MarketplaceView, ...problemResponses(400, 401, 403) },
    },
  }, async (req) => marketplaceView(await app.open(req.principal, req.body.avatarId)))

  f.get('/marketplaces', {
    schema: {
      tags, operationId: 'getAvatarMarketplace', summary: "Find an avatar's marketplace (its owner only)",
      description: `Refused with 404 \`not-found\` when the avatar has none. ${PRIVATE}`,
      querystring: FindQuery, response: { 200: MarketplaceView, ...reads },
    },
  }, async (req) => marketplaceView(await app.ofAvatar(req.principal, req.query.avatarId)))

  f.get('/marketplaces/:marketplaceId', {
    schema: { tags, operationId: 'getMarketplace', summary: 'Get a marketplace with its items on sale', description: PRIVATE,
      params: MarketplaceParams, response: { 200: MarketplaceView, ...reads } },
  }, async (req) => marketplaceView(await app.get(req.principal, req.params.marketplaceId)))

  f.get('/marketplaces/:marketplaceId/items', {
    schema: {
      tags, operationId: 'listMarketplaceItems', summary: 'List the items on sale, optionally of one type',
      description: 'The shared catalog: `type` is ALL (the default), WEAPON, ARMOR or CONSUMABLE; anything else is 400 ' +
        `\`validation\`. ${PRIVATE}`,
      params: MarketplaceParams, querystring: ItemsQuery, response: { 200: Type.Array(ShopItemView), ...reads },
    },
  }, async (req) => (await app.items(req.principal, req.params.marketplaceId, req.query.type)).map(shopItemView))

  f.get('/marketplaces/:marketplaceId/items/:itemName', {
    schema: {
      tags, operationId: 'getMarketplaceItem', summary: 'Get one item on sale',
      description: `Refused with 404 \`not-found\` for a name the catalog does not sell. ${PRIVATE}`,
      params: ItemParams, response: { 200: ShopItemView, ...reads },
    },
  }, async (req) => shopItemDetail(req.params.marketplaceId, await app.item(req.principal, req.params.marketplaceId, req.params.itemName)))

  f.post('/marketplaces/:marketplaceId/items/:itemName/buy', {
    schema: {
      tags, operationId: 'buyItem', summary: 'Buy an item: pay its price from the wallet, add it to the inventory',
      description: 'Price and item come from the catalog, never from the request. Refused (and nothing changes) with 400 ' +
        '`insufficient-funds`, `level-too-low` (the avatar\'s real level, or a stated `currentLevel`, is below the item\'s ' +
        `\`requiredLevel\`) or \`inventory-full\`; 404 \`not-found\` for a name the catalog does not sell. ${PRIVATE} ${SAGA} ` +
        'Emits `ItemBought`.',
      params: ItemParams, querystring: BuyQuery, response: trades,
    },
  }, async (req, reply) => {
    await app.buy(req.principal, req.params.marketplaceId, req.params.itemName, req.query.currentLevel)
    return noContent(reply)
  })

  f.get('/marketplaces/:marketplaceId/sold-items', {
    schema: {
      tags, operationId: 'listSoldItems', summary: 'List the items an avatar sold, newest first, with the price paid',
      description: `Pages of \`limit\` (default ${SOLD_LIST_DEFAULT_LIMIT}); a \`Link: <…>; rel="next"\` header names the next page, ` +
        `and a cursor that names no sale of this marketplace is 400 \`invalid-cursor\`. ${PRIVATE}`,
      params: MarketplaceParams, querystring: SoldItemsQuery, response: { 200: Type.Array(SoldItemView), ...reads },
    },
  }, async (req, reply) => {
    const { limit } = req.query
    const page = await app.soldItems(req.principal, req.params.marketplaceId, req.query)
    if (page.next) reply.header('link', `<${marketplacePath(req.params.marketplaceId)}/sold-items?limit=${limit}&cursor=${page.next}>; rel="next"`)
    return page.items.map(soldItemView)
  })

  f.get('/marketplaces/:marketplaceId/sold-items/:itemName', {
    schema: {
      tags, operationId: 'getSoldItem', summary: 'Get the latest sale of an item of that name',
      description: `Refused with 404 \`not-found\` when no item of that name was sold here. ${PRIVATE}`,
      params: ItemParams, response: { 200: SoldItemView, ...reads },
    },
  }, async (req) => soldItemDetail(req.params.marketplaceId, await app.soldItem(req.principal, req.params.marketplaceId, req.params.itemName)))

  f.post('/marketplaces/:marketplaceId/sold-items/:itemName/sell', {
    schema: {
      tags, operationId: 'sellItem', summary: 'Sell an inventory item: the wallet is paid and it is listed as sold',
      description: `Pays the catalog price / ${SELL_PRICE_DIVISOR} (rounded down, at least ${MIN_SELL_PRICE}), or the power of an ` +
        'item the catalog does not sell. Refused with 400 `item-not-in-inventory` or `item-equipped` (an item that is only ' +
        'equipped cannot be sold: unequip it first); 404 `not-found` for a name neither in the inventory nor in the catalog. ' +
        `${PRIVATE} ${SAGA} Emits \`ItemSold\`.`,
      params: ItemParams, response: trades,
    },
  }, async (req, reply) => {
    await app.sell(req.principal, req.params.marketplaceId, req.params.itemName)
    return noContent(reply)
  })
}
