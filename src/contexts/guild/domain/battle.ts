/**
 * Boss battle rules. Pure. An attack is two steps because the strike-back's effect (did the
 * attacker die?) is the avatar context's answer: `strike` decides the hit and the strike-back,
 * `afterStrikeBack` records the answer and judges the outcome.
 */
import { AttackerFallen, BattleOver, NotAParticipant } from './errors.js'
import { BATTLE_POINTS_DIVISOR, BOSSES, MIN_HIT, type Boss, type BossType } from './rules.js'

export type BattleStatus = 'IN_PROGRESS' | 'WON' | 'LOST'

export interface Participant {
  avatarId: string
  fallen: boolean
  damageDealt: number
  attacks: number
}

export interface Battle {
  id: string
  guildId: string
  bossType: BossType
  boss: Boss
  status: BattleStatus
  currentTurn: number
  numOfTurns: number
  bossRemainingHealth: number
  participants: Participant[]
  startedAt: Date
  endedAt: Date | null
}

/** What an attacker brings to a fight (from the avatar context). */
export interface Fighter {
  attack: number
  defense: number
}

export interface Strike {
  battle: Battle
  /** Health the boss lost (never more than it had). */
  dealt: number
  /** Damage the boss strikes back with; 0 when it fell. */
  strikeBack: number
}

export function startBattle(b: { id: string; guildId: string; bossType: BossType; memberIds: string[]; now: Date }): Battle {
  const boss = BOSSES[b.bossType]
  return {
    id: b.id,
    guildId: b.guildId,
    bossType: b.bossType,
    boss,
    status: 'IN_PROGRESS',
    currentTurn: 0,
    numOfTurns: boss.turnsPerMember * b.memberIds.length,
    bossRemainingHealth: boss.health,
    participants: b.memberIds.map((avatarId) => ({ avatarId, fallen: false, damageDealt: 0, attacks: 0 })),
    startedAt: b.now,
    endedAt: null,
  }
}

const participantOf = (b: Battle, avatarId: string) => b.participants.find((p) => p.avatarId === avatarId)

/** Who may attack now: throws when the battle is over, or the avatar is not in it or has fallen. */
export function checkAttacker(b: Battle, avatarId: string): void {
  if (b.status !== 'IN_PROGRESS') throw new BattleOver(b.status)
  const p = participantOf(b, avatarId)
  if (!p) throw new NotAParticipant(avatarId)
  if (p.fallen) throw new AttackerFallen(avatarId)
}

/** An attack uses one turn: dealt = max(1, min(damage, attack) − boss defense); the boss strikes back if it stands. */
export function strike(b: Battle, attackerId: string, damage: number, fighter: Fighter, now: Date): Strike {
  checkAttacker(b, attackerId)
  const hit = Math.max(MIN_HIT, Math.min(damage, fighter.attack) - b.boss.defense)
  const dealt = Math.min(hit, b.bossRemainingHealth)
  const bossRemainingHealth = b.bossRemainingHealth - dealt
  const won = bossRemainingHealth === 0
  const battle: Battle = {
    ...b,
    currentTurn: b.currentTurn + 1,
    bossRemainingHealth,
    participants: b.participants.map((p) =>
      p.avatarId === attackerId ? { ...p, damageDealt: p.damageDealt + dealt, attacks: p.attacks + 1 } : p),
    ...(won ? { status: 'WON' as const, endedAt: now } : {}),
  }
  const strikeBack = won ? 0 : Math.max(MIN_HIT, b.boss.strength - fighter.defense)
  return { battle, dealt, strikeBack }
}

/** Records whether the strike-back killed the attacker; turns used up or everyone fallen: LOST. */
export function afterStrikeBack(b: Battle, attackerId: string, attackerDied: boolean, now: Date): Battle {
  if (b.status !== 'IN_PROGRESS') return b
  const participants = attackerDied ? b.participants.map((p) => (p.avatarId === attackerId ? { ...p, fallen: true } : p)) : b.participants
  const lost = b.currentTurn >= b.numOfTurns || participants.every((p) => p.fallen)
  return { ...b, participants, ...(lost ? { status: 'LOST' as const, endedAt: now } : {}) }
}

/** Guild points for a battle won. */
export const pointsForVictory = (boss: Boss): number => Math.floor(boss.experienceReward / BATTLE_POINTS_DIVISOR)
