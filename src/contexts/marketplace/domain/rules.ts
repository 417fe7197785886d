/** Every number of the marketplace (DESIGN §6, Marketplace), and the seeded catalog. */

export const ITEM_TYPES = ['WEAPON', 'ARMOR', 'CONSUMABLE'] as const
/** `?type=` of the item listing: one type, or ALL (the default). */
export const ITEM_FILTERS = ['ALL', ...ITEM_TYPES] as const
/** What using a consumable does: restores health or mana by its power, or adds one streak freeze (the avatar's rule). */
export const CONSUMABLE_EFFECTS = ['HEALTH', 'MANA', 'FREEZE'] as const

export interface CatalogItem {
  type: (typeof ITEM_TYPES)[number]
  name: string
  description: string
  power: number
  price: number
  requiredLevel: number
  /** Consumables only: what using it does. */
  effect?: (typeof CONSUMABLE_EFFECTS)[number]
}

/** The shared, seeded shop: every marketplace sells these. Names are unique. */
export const CATALOG: readonly CatalogItem[] = [
  // ---- weapons ----
  { type: 'WEAPON', name: 'Splintered Broom Handle', power: 2, price: 10, requiredLevel: 1,
    description: 'Technically a staff. The dust bunnies under your bed have learned to fear it.' },
  { type: 'WEAPON', name: 'Rusty Shortsword', power: 4, price: 30, requiredLevel: 1,
    description: 'Every hero starts somewhere. This one starts with tetanus.' },
  { type: 'WEAPON', name: 'Oakheart Quarterstaff', power: 6, price: 60, requiredLevel: 3,
    description: 'Cut from a tree that stood for three hundred years without skipping a single day.' },
  { type: 'WEAPON', name: 'Moonlit Rapier', power: 10, price: 150, requiredLevel: 6,
    description: 'Light, quick and faintly silver. Strikes hardest at 6 a.m., when nobody else is up.' },
  { type: 'WEAPON', name: 'Ember Warhammer', power: 15, price: 300, requiredLevel: 10,
    description: 'Forged in a volcano, warm to the touch, and very good at breaking excuses.' },
  { type: 'WEAPON', name: 'Stormcaller Glaive', power: 22, price: 600, requiredLevel: 15,
    description: 'Thunder rolls each time it is raised. The neighbours have complained twice.' },
  { type: 'WEAPON', name: 'Dawnbreaker', power: 30, price: 1200, requiredLevel: 20,
    description: 'The blade of the Early Riser. Legend says it was forged from a hundred kept promises.' },
  // ---- armor ----
  { type: 'ARMOR', name: 'Padded Pajamas', power: 2, price: 15, requiredLevel: 1,
    description: 'Comfortable enough to sleep in, sturdy enough to not. Slippers sold separately.' },
  { type: 'ARMOR', name: 'Boiled Leather Jerkin', power: 5, price: 45, requiredLevel: 2,
    description: 'Smells faintly of soup. Stops a goblin arrow; does not stop the jokes.' },
  { type: 'ARMOR', name: 'Chainmail of Small Victories', power: 9, price: 120, requiredLevel: 5,
    description: 'Each ring was added for one glass of water drunk. It adds up.' },
  { type: 'ARMOR', name: 'Scaled Vest of Consistency', power: 14, price: 280, requiredLevel: 9,
    description: 'Its scales overlap perfectly, like habits that never miss a day.' },
  { type: 'ARMOR', name: 'Aegis of the Unbroken Streak', power: 20, price: 650, requiredLevel: 14,
    description: 'Glows brighter with every day in a row. Do not ask what happens when the streak breaks.' },
  { type: 'ARMOR', name: 'Dragonscale Plate', power: 28, price: 1400, requiredLevel: 20,
    description: 'Shed by an Ancient Dragon who finally took up yoga. Fireproof, and somewhat smug.' },
  // ---- consumables ----
  { type: 'CONSUMABLE', name: 'Questionable Mushroom', power: 1, price: 1, requiredLevel: 1, effect: 'HEALTH',
    description: 'Found behind the tavern. Restores a little health, and a lot of regret.' },
  { type: 'CONSUMABLE', name: 'Minor Healing Draught', power: 20, price: 10, requiredLevel: 1, effect: 'HEALTH',
    description: 'A red, fizzy tonic that tastes of cherries and closes small wounds.' },
  { type: 'CONSUMABLE', name: 'Cup of Strong Coffee', power: 10, price: 8, requiredLevel: 1, effect: 'MANA',
    description: 'Restores mana. Side effects include talking very fast about your plans.' },
  { type: 'CONSUMABLE', name: 'Greater Healing Potion', power: 50, price: 40, requiredLevel: 5, effect: 'HEALTH',
    description: 'Brewed by temple healers from morning dew and an honest night of sleep.' },
  { type: 'CONSUMABLE', name: 'Elixir of Focus', power: 30, price: 35, requiredLevel: 5, effect: 'MANA',
    description: 'Clears the mind like closing forty browser tabs at once.' },
  // A streak freeze (DESIGN §9.3): its power is not an amount, one use adds one freeze.
  { type: 'CONSUMABLE', name: 'Ice Crystal', power: 1, price: 60, requiredLevel: 3, effect: 'FREEZE',
    description: 'Holds one day perfectly still. Miss a habit and your streak stays frozen in place, unharmed.' },
  { type: 'CONSUMABLE', name: 'Phoenix Feather Tonic', power: 150, price: 120, requiredLevel: 12, effect: 'HEALTH',
    description: 'Warm gold in a vial. Whoever drinks it gets up again, slightly singed.' },
  { type: 'CONSUMABLE', name: 'Starwell Essence', power: 80, price: 100, requiredLevel: 16, effect: 'MANA',
    description: 'Drawn from a well that reflects the night sky even at noon. Tastes of starlight and mint.' },
]

/** A sale pays the catalog price divided by this, rounded down... */
export const SELL_PRICE_DIVISOR = 2
/** ...and never less than this; an item not in the catalog sells for its power, also at least this. */
export const MIN_SELL_PRICE = 1

/** Item names are at most this long (as in the avatar's inventory). */
export const ITEM_NAME_MAX = 64
/** Bounds of the `currentLevel` a buyer may state. */
export const CURRENT_LEVEL_MIN = 1
export const CURRENT_LEVEL_MAX = 10_000

/**
 * A saga being run holds a lease this long, renewed by each step; one whose lease has run out
 * was abandoned (a crash, or an avatar service that did not answer) and is taken over by the
 * recovery job. Far longer than the slowest run (every avatar call timing out and retried).
 */
export const SAGA_LEASE_MS = 60_000
export const RECOVERY_EVERY_MS = 30_000
export const RECOVERY_BATCH = 50

export const SOLD_LIST_DEFAULT_LIMIT = 50
export const SOLD_LIST_MAX_LIMIT = 200
