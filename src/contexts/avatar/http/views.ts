import { links } from '../../../platform/http/links.js'
import { type Avatar, effectiveAttack, effectiveDefense, freezesOf, spellsKnownAt } from '../domain/avatar.js'
import { experienceRequired } from '../domain/rules.js'

const avatarPath = (id: string) => `/api/v1/avatars/${encodeURIComponent(id)}`

export const levelOf = (a: Avatar) => ({
  levelNumber: a.level,
  currentExperience: a.experience,
  experienceRequired: experienceRequired(a.level),
})

export const statsOf = (a: Avatar) => ({
  strength: a.strength,
  defense: a.defense,
  intelligence: a.intelligence,
  unspentPoints: a.unspentPoints,
  attack: effectiveAttack(a),
  armor: effectiveDefense(a),
})

export function avatarView(a: Avatar) {
  const self = avatarPath(a.id)
  return {
    id: a.id,
    name: a.name,
    money: { amount: a.money },
    level: levelOf(a),
    health: { current: a.health, max: a.maxHealth },
    mana: { amount: a.mana, max: a.maxMana },
    stats: { strength: a.strength, defense: a.defense, intelligence: a.intelligence },
    inventory: { id: a.inventoryId, items: a.inventory },
    equippedItems: { id: a.equipmentId, items: a.equipped },
    spells: spellsKnownAt(a.level).map((s) => ({ ...s })),
    streakFreezes: freezesOf(a),
    _links: links({
      self,
      avatar: self,
      name: `${self}/name`,
      inventory: `${self}/inventory`,
      equippedItems: `${self}/equipped-items`,
      stats: `${self}/stats`,
      experience: `${self}/experience`,
      level: `${self}/level`,
      health: `${self}/health`,
      mana: `${self}/mana`,
      money: `${self}/money`,
      delete: self,
    }),
  }
}

export const createdLinks = (id: string) => {
  const self = avatarPath(id)
  return links({ self, avatar: self, level: `${self}/level`, health: `${self}/health` })
}

export const moneyLinks = (id: string) => {
  const self = avatarPath(id)
  return links({ self: `${self}/money`, avatar: self, earn: `${self}/money/earn`, spend: `${self}/money/spend` })
}

export const inventoryLinks = (id: string) => {
  const self = avatarPath(id)
  return links({
    self: `${self}/inventory`,
    avatar: self,
    addItem: `${self}/inventory/items`,
    removeItem: `${self}/inventory/items`,
    equip: `${self}/inventory/items/equip`,
    useItem: `${self}/inventory/items/use`,
    equippedItems: `${self}/equipped-items`,
  })
}

export const equippedLinks = (id: string) => {
  const self = avatarPath(id)
  return links({ self: `${self}/equipped-items`, avatar: self, unequip: `${self}/inventory/items/unequip`, inventory: `${self}/inventory` })
}

export const healthLinks = (id: string) => {
  const self = avatarPath(id)
  return links({ self: `${self}/health`, avatar: self, heal: `${self}/health/heal`, damage: `${self}/health/damage` })
}

export const manaLinks = (id: string) => {
  const self = avatarPath(id)
  return links({ self: `${self}/mana`, avatar: self, spend: `${self}/mana/spend`, restore: `${self}/mana/restore` })
}

export const statsLinks = (id: string) => {
  const self = avatarPath(id)
  return links({
    self: `${self}/stats`,
    avatar: self,
    increaseStrength: `${self}/stats/strength`,
    increaseDefense: `${self}/stats/defense`,
    increaseIntelligence: `${self}/stats/intelligence`,
  })
}

export const experienceLinks = (id: string) => {
  const self = avatarPath(id)
  return links({ self: `${self}/experience`, avatar: self, grant: `${self}/experience/grant`, level: `${self}/level` })
}

export const levelLinks = (id: string) => {
  const self = avatarPath(id)
  return links({ self: `${self}/level`, avatar: self, experience: `${self}/experience` })
}

export const nameLinks = (id: string) => {
  const self = avatarPath(id)
  return links({ self: `${self}/name`, avatar: self })
}
