/** The avatar context's problem types (see platform/http/problem-types.ts). */
import type { ProblemCatalog } from '../../../platform/http/problem-types.js'

export const AVATAR_PROBLEMS: ProblemCatalog = {
  'insufficient-funds': { status: 400, rule: true, title: 'Insufficient funds', description: 'The wallet holds less than the amount asked (to spend, or to pay for an item); nothing changed. Earn more by completing habits.' },
  'wallet-full': { status: 400, rule: true, title: 'Wallet full', description: 'The money would pass the most a wallet holds; nothing changed.' },
  'insufficient-mana': { status: 400, rule: true, title: 'Insufficient mana', description: 'The avatar has less mana than the amount asked; nothing changed. Mana comes back with completed habits and with levels.' },
  'no-stat-points': { status: 400, rule: true, title: 'No stat points', description: 'The avatar has no unspent stat point to allocate; each level gained brings one.' },
  'inventory-full': { status: 400, rule: true, title: 'Inventory full', description: 'The inventory holds as many items as it can; sell or use one first.' },
  'item-not-in-inventory': { status: 400, rule: true, title: 'Item not in inventory', description: 'No item of that name (and type, where given) is in the avatar\'s inventory.' },
  'item-equipped': { status: 400, rule: true, title: 'Item equipped', description: 'The item is equipped, so it cannot be removed, sold or given away: unequip it first.' },
  'item-not-equipped': { status: 400, rule: true, title: 'Item not equipped', description: 'No item of that name and type is equipped.' },
  'item-not-equippable': { status: 400, rule: true, title: 'Item not equippable', description: 'Only weapons and armor can be equipped; a consumable is used instead.' },
  'item-not-usable': { status: 400, rule: true, title: 'Item not usable', description: 'Only consumables can be used; weapons and armor are equipped instead.' },
  'freezes-full': { status: 400, rule: true, title: 'Streak freezes full', description: 'The avatar holds the most streak freezes it can; one must be used up by a missed window before another is added.' },
  'too-many-avatars': { status: 400, rule: true, title: 'Too many avatars', description: 'A player may have only so many avatars (`detail` says how many); delete one first.' },
  'avatar-exists': { status: 409, title: 'Avatar exists', description: 'An avatar with this id exists already (another player\'s, or made by an earlier call with other fields). Choose another id, or leave it out to have one made.' },
  'reserved-avatar-id': { status: 400, title: 'Reserved avatar id', description: 'The id is a word the API uses in its paths and cannot name an avatar; choose another.' },
  'economy-authoritative': { status: 403, title: 'Authoritative economy', description: 'This server runs an authoritative economy: money, experience and items come only from play (completed habits, quests, battles and the marketplace), so a player cannot grant them directly. Service and admin tokens still may.' },
  'unknown-avatar': { status: 400, title: 'Unknown avatar', description: 'An avatar named in the body or query (not in the path) does not exist; `errors` names the field.' },
  'invalid-level-range': { status: 400, title: 'Invalid level range', description: 'The search asks for a lowest level above the highest (`minLevel` greater than `maxLevel`).' },
  'avatar-unavailable': { status: 502, title: 'Avatar service unavailable', description: 'The avatar service failed in the middle of an operation that needs it (a registration, a purchase or a sale). Nothing is kept half done: what it applied is undone (`detail` says whether that is finished). Try again.' },
}
