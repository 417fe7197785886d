import { BadGateway, NotFound, RuleViolation } from '../../../platform/errors.js'

export class LevelTooLow extends RuleViolation {
  constructor(name: string, required: number, level: number, whose: 'avatar' | 'stated') {
    super('level-too-low', whose === 'avatar'
      ? `'${name}' needs level ${required}; the avatar is level ${level}.`
      : `'${name}' needs level ${required}; the stated currentLevel is ${level}.`)
  }
}

export class MarketplaceNotFound extends NotFound {
  constructor(id: string) {
    super('Marketplace', id)
  }
}

export class NoMarketplaceForAvatar extends NotFound {
  constructor(avatarId: string) {
    super(`A marketplace of avatar '${avatarId}'`)
  }
}

export class ItemNotSold extends NotFound {
  constructor(name: string) {
    super('Sold item', name)
  }
}

export class UnknownItem extends NotFound {
  constructor(name: string) {
    super('Item', name)
  }
}

/** The avatar service failed during a purchase or sale; whatever it had applied is being undone. */
export class AvatarUnavailable extends BadGateway {
  constructor(what: string, sagaId: string, settled: boolean) {
    super(settled
      ? `The avatar service failed during the ${what}; nothing was changed (saga ${sagaId}).`
      : `The avatar service failed during the ${what}; anything already applied will be undone by the recovery job (saga ${sagaId}).`,
    'avatar-unavailable')
  }
}
