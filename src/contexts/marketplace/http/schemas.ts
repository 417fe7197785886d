import { Type } from 'typebox'
import { LinksSchema } from '../../../platform/http/links.js'
import { AvatarIdString, StringEnum } from '../../../platform/http/schemas.js'
import {
  CONSUMABLE_EFFECTS, CURRENT_LEVEL_MAX, CURRENT_LEVEL_MIN, ITEM_FILTERS, ITEM_NAME_MAX, ITEM_TYPES, SOLD_LIST_DEFAULT_LIMIT, SOLD_LIST_MAX_LIMIT,
} from '../domain/rules.js'

const MarketplaceId = Type.String({ format: 'uuid' })
const AvatarId = AvatarIdString()
/** At least one visible character and no control characters (PostgreSQL text cannot hold NUL). */
const ItemName = Type.String({
  minLength: 1, maxLength: ITEM_NAME_MAX, pattern: '^(?=.*\\S)[^\\u0000-\\u001F\\u007F]+$',
  description: 'The item name, exactly as listed (URL-encoded)',
})

export const MarketplaceParams = Type.Object({ marketplaceId: MarketplaceId })
export const ItemParams = Type.Object({ marketplaceId: MarketplaceId, itemName: ItemName })

export const OpenBody = Type.Object({ avatarId: AvatarId }, { examples: [{ avatarId: 'ada-ranger' }] })
export const FindQuery = Type.Object({ avatarId: AvatarId })
export const ItemsQuery = Type.Object({
  type: StringEnum(ITEM_FILTERS, { default: 'ALL', description: 'Only items of this type; ALL (the default) lists every item' }),
})
export const BuyQuery = Type.Object({
  currentLevel: Type.Optional(Type.Integer({
    minimum: CURRENT_LEVEL_MIN, maximum: CURRENT_LEVEL_MAX,
    description: "The avatar's level as the buyer sees it; below the item's requiredLevel is refused. The real level is checked either way.",
  })),
})
export const SoldItemsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: SOLD_LIST_MAX_LIMIT, default: SOLD_LIST_DEFAULT_LIMIT }),
  cursor: Type.Optional(Type.String({ format: 'uuid', description: 'From the `next` link of the previous page' })),
})

// ---- views ----

const itemFields = {
  type: StringEnum(ITEM_TYPES),
  name: Type.String(),
  description: Type.String(),
  power: Type.Integer(),
  price: Type.Integer(),
  effect: Type.Optional(StringEnum(CONSUMABLE_EFFECTS, { description: 'Consumables: what using it does: restores HEALTH or MANA by its power, or adds one streak FREEZE' })),
}

export const ShopItemView = Type.Object({
  ...itemFields,
  requiredLevel: Type.Integer({ description: 'The level an avatar needs to buy it' }),
  _links: Type.Optional(LinksSchema),
})

export const SoldItemView = Type.Object({
  ...itemFields,
  soldAt: Type.String({ description: 'When it was sold (ISO 8601, UTC)' }),
  _links: Type.Optional(LinksSchema),
})

export const MarketplaceView = Type.Object({
  id: Type.String(),
  avatarId: Type.String(),
  items: Type.Array(ShopItemView, { description: 'Every item on sale' }),
  _links: LinksSchema,
})
