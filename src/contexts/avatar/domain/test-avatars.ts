/** The avatar and items the avatar rules' tests start from (they share no state: each call makes a new one). */
import { addItem, newAvatar, type Avatar, type Item } from './avatar.js'

export const fresh = (): Avatar => newAvatar({ id: 'a', ownerId: 'o', name: 'N', inventoryId: 'i', equipmentId: 'e' })
export const withItems = (a: Avatar, ...items: Item[]): Avatar => items.reduce(addItem, a)

export const sword: Item = { type: 'WEAPON', name: 'Sword', description: 'Sharp.', power: 5 }
export const potion: Item = { type: 'CONSUMABLE', name: 'Potion', description: 'Red.', power: 30, effect: 'HEALTH' }
