import { Type } from 'typebox'
import { LinksSchema } from '../../../platform/http/links.js'
import { AvatarIdString, STORED_INT_MAX, StringEnum } from '../../../platform/http/schemas.js'
import {
  AMOUNT_MAX, AMOUNT_MIN, AVATAR_NAME_MAX, CONSUMABLE_EFFECTS, DAMAGE_MIN, ITEM_DESCRIPTION_MAX,
  ITEM_NAME_MAX, ITEM_POWER_MAX, ITEM_TYPES,
} from '../domain/rules.js'

export const AvatarIdParams = Type.Object({ id: AvatarIdString() })

/** A name must have at least one visible character; surrounding spaces are trimmed. */
const AvatarName = Type.String({ minLength: 1, maxLength: AVATAR_NAME_MAX, pattern: '\\S' })

export const CreateAvatarBody = Type.Object({
  id: AvatarIdString(),
  name: AvatarName,
}, { examples: [{ id: 'ada-ranger', name: 'Ada the Ranger' }] })

export const NameBody = Type.Object({ name: AvatarName }, { examples: [{ name: 'Ada the Bold' }] })

export const Amount = Type.Object({ amount: Type.Integer({ minimum: AMOUNT_MIN, maximum: AMOUNT_MAX }) }, { examples: [{ amount: 25 }] })
export const DamageAmount = Type.Object({ amount: Type.Integer({ minimum: DAMAGE_MIN, maximum: AMOUNT_MAX }) }, { examples: [{ amount: 15 }] })

const ItemType = StringEnum(ITEM_TYPES)
const ItemName = Type.String({ minLength: 1, maxLength: ITEM_NAME_MAX, pattern: '\\S' })

export const ItemBody = Type.Object({
  type: ItemType,
  name: ItemName,
  description: Type.Optional(Type.String({ maxLength: ITEM_DESCRIPTION_MAX })),
  power: Type.Integer({ minimum: 0, maximum: ITEM_POWER_MAX }),
  effect: Type.Optional(StringEnum(CONSUMABLE_EFFECTS, { description: 'For consumables: what it does: restores HEALTH (the default) or MANA, or adds a streak FREEZE' })),
}, {
  examples: [{
    type: 'CONSUMABLE', name: 'Minor Healing Draught', description: 'A red, fizzy tonic that tastes of cherries and closes small wounds.', power: 20, effect: 'HEALTH',
  }],
})

/** Names an inventory or equipped item; matched by type and name, other fields ignored but bounded as an item's. */
export const ItemRefBody = Type.Object({
  type: ItemType,
  name: ItemName,
  description: ItemBody.properties.description,
  power: Type.Optional(ItemBody.properties.power),
}, { examples: [{ type: 'WEAPON', name: 'Rusty Shortsword' }] })

export const UseItemBody = Type.Object({ name: ItemName }, { examples: [{ name: 'Minor Healing Draught' }] })

export const SearchCriteria = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: AVATAR_NAME_MAX })),
  // Bounds of a filter, not levels: 0 means from the start.
  minLevel: Type.Optional(Type.Integer({ minimum: 0, maximum: STORED_INT_MAX })),
  maxLevel: Type.Optional(Type.Integer({ minimum: 0, maximum: STORED_INT_MAX })),
})

export const SearchQuery = Type.Object({
  ...SearchCriteria.properties,
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
})

// ---- views ----

export const ItemView = Type.Object({
  type: ItemType,
  name: Type.String(),
  description: Type.String(),
  power: Type.Integer(),
  effect: Type.Optional(StringEnum(CONSUMABLE_EFFECTS)),
})

export const ItemsView = Type.Object({ id: Type.String(), items: Type.Array(ItemView), _links: Type.Optional(LinksSchema) })

export const LevelView = Type.Object({
  levelNumber: Type.Integer(),
  currentExperience: Type.Integer(),
  experienceRequired: Type.Integer(),
  _links: Type.Optional(LinksSchema),
})

export const HealthView = Type.Object({ current: Type.Integer(), max: Type.Integer(), _links: Type.Optional(LinksSchema) })
export const ManaView = Type.Object({ amount: Type.Integer(), max: Type.Integer(), _links: Type.Optional(LinksSchema) })
export const MoneyView = Type.Object({ amount: Type.Integer(), _links: Type.Optional(LinksSchema) })
export const ExperienceView = Type.Object({ amount: Type.Integer(), _links: Type.Optional(LinksSchema) })
export const NameView = Type.Object({ name: Type.String(), _links: Type.Optional(LinksSchema) })

export const StatsView = Type.Object({
  strength: Type.Integer(),
  defense: Type.Integer(),
  intelligence: Type.Integer(),
  unspentPoints: Type.Integer(),
  attack: Type.Integer({ description: 'strength + equipped weapon power' }),
  armor: Type.Integer({ description: 'defense + equipped armor power' }),
  _links: Type.Optional(LinksSchema),
})

const SpellView = Type.Object({
  name: Type.String(),
  description: Type.String(),
  manaCost: Type.Integer(),
  power: Type.Integer(),
  requiredLevel: Type.Integer(),
})

export const StreakFreezesView = Type.Object({
  held: Type.Integer({ minimum: 0, description: 'Streak freezes held: each takes the penalty of one missed window, and keeps the streak' }),
  max: Type.Integer({ minimum: 0, description: 'The most an avatar may hold' }),
}, { description: 'Earned each time a habit\'s streak reaches a multiple of 7 (while below max), or from an Ice Crystal' })

export const AvatarView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  money: Type.Object({ amount: Type.Integer() }),
  level: Type.Object({ levelNumber: Type.Integer(), currentExperience: Type.Integer(), experienceRequired: Type.Integer() }),
  health: Type.Object({ current: Type.Integer(), max: Type.Integer() }),
  mana: Type.Object({ amount: Type.Integer(), max: Type.Integer() }),
  stats: Type.Object({ strength: Type.Integer(), defense: Type.Integer(), intelligence: Type.Integer() }),
  inventory: Type.Object({ id: Type.String(), items: Type.Array(ItemView) }),
  equippedItems: Type.Object({ id: Type.String(), items: Type.Array(ItemView) }),
  spells: Type.Array(SpellView),
  streakFreezes: StreakFreezesView,
  _links: LinksSchema,
})

export const CreatedView = Type.Object({ id: Type.String(), _links: LinksSchema })

export const SearchView = Type.Object({
  _embedded: Type.Object({ avatars: Type.Array(AvatarView) }),
  _links: LinksSchema,
})

export const DiedView = Type.Object({ died: Type.Boolean(), health: Type.Integer({ description: 'Health after the blow (refilled on death)' }) })

export const ProvisionBody = Type.Object({
  ownerId: Type.String({ format: 'uuid', description: 'The user who will own the avatar' }),
  name: AvatarName,
}, { examples: [{ ownerId: '5b7d2c1e-3f4a-4b8c-9d0e-1a2b3c4d5e6f', name: 'Ada Lovelace' }] })

export const OwnerView = Type.Object({ userId: Type.String() })

export const ProfileView = Type.Object({
  ownerId: Type.String({ description: 'The user who owns the avatar' }),
  name: Type.String({ description: "The avatar's public name" }),
  level: Type.Integer(),
  attack: Type.Integer({ description: 'Strength plus the equipped weapon' }),
  defense: Type.Integer({ description: 'Defense plus the equipped armor' }),
  health: Type.Integer(),
  maxHealth: Type.Integer(),
  deaths: Type.Integer({ description: 'How many times the avatar has died: a battle judges a fighter fallen once this moved on since it entered' }),
  taken: Type.Array(Type.String(), { description: 'Those of the asked `keys` (idempotency keys of calls) the avatar has taken' }),
})

/** How many avatars one profiles read names: a guild's members fit (MEMBER_CAP) with room. */
export const PROFILES_MAX = 100

export const ProfilesQuery = Type.Object({
  // One id arrives as a string (`?ids=a`), more as an array (`?ids=a&ids=b`).
  ids: Type.Union([AvatarIdString(), Type.Array(AvatarIdString(), { minItems: 1, maxItems: PROFILES_MAX })], { description: `The avatars to read, 1–${PROFILES_MAX}` }),
})

export const ProfilesView = Type.Object({
  items: Type.Array(Type.Object({ avatarId: Type.String(), ...ProfileView.properties }), {
    description: 'The profiles of those of the asked avatars that exist (`taken` is empty), in the order asked; an unknown avatar is left out',
  }),
})

const CallKey = Type.String({ minLength: 1, maxLength: 300 })
export const ProfileQuery = Type.Object({
  // One key arrives as a string (`?keys=k`), more as an array (`?keys=k1&keys=k2`).
  keys: Type.Optional(Type.Union([CallKey, Type.Array(CallKey, { maxItems: 100 })], { description: 'Idempotency keys of calls to ask about' })),
})
