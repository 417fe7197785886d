/** The API's shapes, as the web app reads them (see /openapi.json). */

export type ItemType = 'WEAPON' | 'ARMOR' | 'CONSUMABLE'

export interface Item {
  type: ItemType
  name: string
  description: string
  power: number
  effect?: 'HEALTH' | 'MANA'
}

export interface Spell {
  name: string
  description: string
  manaCost: number
  power: number
  requiredLevel: number
}

export interface Avatar {
  id: string
  name: string
  money: { amount: number }
  level: { levelNumber: number; currentExperience: number; experienceRequired: number }
  health: { current: number; max: number }
  mana: { amount: number; max: number }
  stats: { strength: number; defense: number; intelligence: number }
  inventory: { id: string; items: Item[] }
  equippedItems: { id: string; items: Item[] }
  spells: Spell[]
}

export interface Stats {
  strength: number
  defense: number
  intelligence: number
  unspentPoints: number
  attack: number
  armor: number
}

export type RecurrenceType = 'DAILY' | 'WEEKLY' | 'MONTHLY'
export type DayOfWeek = 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY'
export const DAYS: DayOfWeek[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']

export interface Recurrence {
  type: RecurrenceType
  dayOfWeek: DayOfWeek | null
  dayOfMonth: number | null
}

export interface Habit {
  id: string
  avatarId: string
  title: string
  description: string
  tags: string[]
  recurrence: Recurrence
  lastAttendedDate: string | null
  nextRecurrenceDate: string
  associatedQuestId: string | null
  streak: number
  bestStreak: number
  timeZone: string
}

export type Role = 'LEADER' | 'OFFICER' | 'MEMBER'

export interface Member {
  avatarId: string
  nickname: string
  role: Role
  joinedAt: string
}

export interface Guild {
  id: string
  name: string
  globalRank: number
  points: number
  createdAt: string
  members: Member[]
}

export interface Invite {
  id: string
  guildId: string
  targetAvatarId: string
  invitedBy: string
  createdAt: string
  expiresAt: string
}

export type BossType = 'GOBLIN' | 'MINOTAUR' | 'TROLL' | 'HYDRA' | 'DRAGON'

export interface Boss {
  type: BossType
  name: string
  health: number
  strength: number
  defense: number
  experienceReward: number
  moneyReward: number
  penalty: number
  turnsPerMember: number
}

export interface Battle {
  id: string
  guildId: string
  status: 'IN_PROGRESS' | 'WON' | 'LOST'
  currentTurn: number
  numOfTurns: number
  boss: Boss
  bossRemainingHealth: number
  participants: { avatarId: string; fallen: boolean; damageDealt: number; attacks: number }[]
  startedAt: string
  endedAt: string | null
}

export interface Attack {
  turn: number
  attackerAvatarId: string
  requestedDamage: number
  dealt: number
  strikeBack: number
  attackerFell: boolean
  at: string
}

export interface QuestHabit {
  habitId: string
  title: string
  description?: string
  tags?: string[]
  recurrence: { type: RecurrenceType; dayOfWeek?: DayOfWeek | null; dayOfMonth?: number | null }
}

export interface Quest {
  id: string
  name: string
  description: string
  duration: string
  reward: { experience: number; money: number }
  habitIds: string[]
  guildId: string | null
  ownerAvatarId: string
}

export interface Participation {
  id: string
  questId: string
  avatarId: string
  status: 'IN_PROGRESS' | 'COMPLETED' | 'EXPIRED'
  window: { from: string; to: string }
  habits: { habitId: string; title: string; copyHabitId: string; required: number; done: number }[]
  required: number
  done: number
  percent: number
  payout: { experience: number; money: number }
}

export interface MarketItem {
  name: string
  type: ItemType
  description: string
  power: number
  price: number
  requiredLevel: number
}

export interface Page<T> {
  items: T[]
  next: string | null
}
