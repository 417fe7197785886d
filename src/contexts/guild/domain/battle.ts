/**
 * Boss battle rules. Pure. An attack is judged whole inside the battle: the hit, the boss's
 * strike-back, and whether it fells the attacker. The fall is judged from the battle's own health
 * ledger of the attacker (the lower of the health the avatar reported before the attack and what
 * the battle left it with), so the battle knows at once, without waiting for the avatar context
 * to apply the strike-back (which it does after commit, from an event).
 */
import { AttackerFallen, BattleOver, NotAParticipant } from './errors.js'
import { BATTLE_POINTS_DIVISOR, BOSSES, MIN_HIT, type Boss, type BossType } from './rules.js'

export type BattleStatus = 'IN_PROGRESS' | 'WON' | 'LOST'

export interface Participant {
  avatarId: string
  fallen: boolean
  damageDealt: number
  attacks: number
  /** The attacker's health as this battle last left it (after its strike-back); absent before its first attack. */
  health?: number | undefined
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

/** What an attacker brings to a fight (from the avatar context, read before the attack). */
export interface Fighter {
  attack: number
  defense: number
  /** The avatar's health as it reported it; strike-backs of this battle may not have reached it yet. */
  health: number
}

export interface Strike {
  battle: Battle
  /** Health the boss lost (never more than it had). */
  dealt: number
  /** Damage the boss strikes back with; 0 when it fell. */
  strikeBack: number
  /** The strike-back took the attacker's last health: fallen for this battle. */
  attackerFell: boolean
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

/**
 * An attack uses one turn: dealt = max(1, min(damage, attack) − boss defense). If the boss stands,
 * it strikes back with max(1, boss strength − defense), taken from the attacker's health in this
 * battle: the lower of what the avatar reported and what the battle last left it with (a
 * strike-back the avatar has not applied yet still counts; healing during the battle does not).
 * An attacker left with none has fallen. Boss at 0: WON; turns used up or everyone fallen: LOST.
 */
export function strike(b: Battle, attackerId: string, damage: number, fighter: Fighter, now: Date): Strike {
  checkAttacker(b, attackerId)
  const hit = Math.max(MIN_HIT, Math.min(damage, fighter.attack) - b.boss.defense)
  const dealt = Math.min(hit, b.bossRemainingHealth)
  const bossRemainingHealth = b.bossRemainingHealth - dealt
  const won = bossRemainingHealth === 0
  const strikeBack = won ? 0 : Math.max(MIN_HIT, b.boss.strength - fighter.defense)
  const attacker = participantOf(b, attackerId)!
  const healthBefore = Math.min(fighter.health, attacker.health ?? fighter.health)
  const health = Math.max(0, healthBefore - strikeBack)
  const attackerFell = strikeBack > 0 && health === 0
  const participants = b.participants.map((p) => p.avatarId !== attackerId ? p : {
    ...p, damageDealt: p.damageDealt + dealt, attacks: p.attacks + 1, health, fallen: attackerFell,
  })
  const currentTurn = b.currentTurn + 1
  const lost = !won && (currentTurn >= b.numOfTurns || participants.every((p) => p.fallen))
  const status = won ? 'WON' as const : lost ? 'LOST' as const : b.status
  const battle: Battle = { ...b, currentTurn, bossRemainingHealth, participants, status, endedAt: status === 'IN_PROGRESS' ? b.endedAt : now }
  return { battle, dealt, strikeBack, attackerFell }
}

/** Guild points for a battle won. */
export const pointsForVictory = (boss: Boss): number => Math.floor(boss.experienceReward / BATTLE_POINTS_DIVISOR)

/**
 * A battle's version: it changes once when it starts and once per turn (its end comes with its
 * last turn), so the version after a change is the turns used plus one. Its events carry it.
 */
export const battleVersion = (b: Battle): number => b.currentTurn + 1
