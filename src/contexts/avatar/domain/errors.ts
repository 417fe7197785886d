import { BadRequest, Conflict, RuleViolation, Unauthorized } from '../../../platform/errors.js'

export class InsufficientFunds extends RuleViolation {
  constructor(held: number, asked: number) {
    super('insufficient-funds', `The wallet holds ${held}; ${asked} was asked.`)
  }
}

export class WalletFull extends RuleViolation {
  constructor(max: number) {
    super('wallet-full', `A wallet cannot hold more than ${max}.`)
  }
}

export class InsufficientMana extends RuleViolation {
  constructor(held: number, asked: number) {
    super('insufficient-mana', `The avatar has ${held} mana; ${asked} was asked.`)
  }
}

export class NoStatPoints extends RuleViolation {
  constructor() {
    super('no-stat-points', 'The avatar has no unspent stat points; gain a level to earn one.')
  }
}

export class InventoryFull extends RuleViolation {
  constructor(capacity: number) {
    super('inventory-full', `The inventory holds at most ${capacity} items.`)
  }
}

export class ItemNotInInventory extends RuleViolation {
  constructor(type: string | undefined, name: string) {
    super('item-not-in-inventory', `No ${type ? `${type} ` : ''}item named '${name}' is in the inventory.`)
  }
}

export class ItemEquipped extends RuleViolation {
  constructor(name: string) {
    super('item-equipped', `'${name}' is equipped; unequip it first.`)
  }
}

export class ItemNotEquipped extends RuleViolation {
  constructor(type: string, name: string) {
    super('item-not-equipped', `No ${type} named '${name}' is equipped.`)
  }
}

export class NotEquippable extends RuleViolation {
  constructor(name: string) {
    super('item-not-equippable', `'${name}' is a consumable; only weapons and armor can be equipped.`)
  }
}

export class NotUsable extends RuleViolation {
  constructor(name: string) {
    super('item-not-usable', `'${name}' is not a consumable; only consumables can be used.`)
  }
}

export class FreezesFull extends RuleViolation {
  constructor(max: number) {
    super('freezes-full', `The avatar already holds ${max} streak freezes, the most it can; one must be used up by a missed window first.`)
  }
}

export class TooManyAvatars extends RuleViolation {
  constructor(max: number) {
    super('too-many-avatars', `A player may create at most ${max} avatars.`)
  }
}

export class AvatarIdTaken extends Conflict {
  constructor(id: string) {
    super(`An avatar with id '${id}' already exists.`, 'avatar-exists')
  }
}

export class ReservedAvatarId extends BadRequest {
  constructor(id: string) {
    super(`'${id}' is a reserved word and cannot be an avatar id.`, 'reserved-avatar-id', [{ path: '/id', message: 'must not be a reserved word' }])
  }
}

/** A creation for an account deleted meanwhile (its token not yet refused here): as a revoked token, 401. */
export class AccountClosed extends Unauthorized {
  constructor() {
    super('The account of this access token has been deleted.', 'invalid-token')
  }
}
