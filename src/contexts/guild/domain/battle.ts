/**
 * Boss battle rules. Pure. An attack is judged on the attacker as it is (its owner, effective
 * attack and defense, health and how many times it has died, read fresh before each batch of
 * attacks): the hit, the boss's strike-back, and whether it fells the attacker. An attacker who
 * has died since it entered the battle, in this battle or anywhere else, has fallen: it fights no
 * more (the battle marks it when it hears of the death: `fallOut`). The avatar context applies
 * each strike-back (its death follows from its own health).
 */
import { AttackerFallen, BattleOver, NotAParticipant } from './errors.js'
import { BATTLE_POINTS_DIVISOR, BOSSES, MIN_HIT, type Boss, type BossType } from './rules.js'

export type BattleStatus = 'IN_PROGRESS' | 'WON' | 'LOST'

export interface Participant {
  avatarId: string
  fallen: boolean
  damageDealt: number
  attacks: number
  /** How many times the avatar had died when it entered the battle (at its start, or with its first attack when it could not be read then). */
  deathsAtEntry?: number | undefined
}

/** A strike-back the battle dealt, to be applied to the avatar under `key` (once, whoever applies it). */
export interface StrikeBackDue {
  avatarId: string
  damage: number
  key: string
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
  /** The strike-backs of its last change, which the avatar context may not have applied yet. */
  strikeBacksDue: StrikeBackDue[]
  version: number
}

/** One accepted attack, as the battle's log keeps it. */
export interface Attack {
  turn: number
  attackerAvatarId: string
  requestedDamage: number
  dealt: number
  strikeBack: number
  attackerFell: boolean
  at: Date
}

/** An attacker as the avatar context reports it now. */
export interface Fighter {
  /** The user owning the avatar. */
  ownerId: string
  attack: number
  defense: number
  health: number
  /** How many times it has died. */
  deaths: number
}

/** An attack that landed: one turn used. */
export interface Strike {
  battle: Battle
  /** Health the boss lost (never more than it had). */
  dealt: number
  /** Damage the boss strikes back with; 0 when it fell. */
  strikeBack: number
  /** The strike-back takes the attacker's last health: fallen for this battle. */
  attackerFell: boolean
}

/**
 * A battle of the guild's members now. Those whose fighter was read (`fighters`, by avatar id)
 * enter at once; one that could not be read enters with its first attack.
 */
export function startBattle(b: { id: string; guildId: string; bossType: BossType; memberIds: string[]; fighters?: ReadonlyMap<string, Fighter>; now: Date }): Battle {
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
    participants: b.memberIds.map((avatarId) => ({ avatarId, fallen: false, damageDealt: 0, attacks: 0, deathsAtEntry: b.fighters?.get(avatarId)?.deaths })),
    startedAt: b.now,
    endedAt: null,
    strikeBacksDue: [],
    version: 0,
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

const withParticipant = (b: Battle, avatarId: string, change: (p: Participant) => Participant): Participant[] =>
  b.participants.map((p) => (p.avatarId === avatarId ? change(p) : p))

/** The battle's status after a change of its participants or turns: won at 0 boss health; lost with the turns used up or everyone fallen. */
function concluded(b: Battle, now: Date): Battle {
  const won = b.bossRemainingHealth === 0
  const lost = !won && (b.currentTurn >= b.numOfTurns || b.participants.every((p) => p.fallen))
  const status = won ? 'WON' as const : lost ? 'LOST' as const : b.status
  return { ...b, status, endedAt: status === 'IN_PROGRESS' ? b.endedAt : now }
}

/**
 * An attack, judged on the attacker as it is now (`fighter`) and the health it has before this
 * attack (`healthBefore`: what it reported, less the strike-backs of this battle not yet applied to
 * it). One who died since it entered the battle (here or elsewhere), or whom a strike-back not
 * yet applied will kill, has fallen: refused. Otherwise one turn is used: dealt =
 * max(1, min(damage, attack) − boss defense); if the boss stands it strikes back with
 * max(1, boss strength − defense), and an attacker left with no health has fallen.
 */
export function judgeAttack(b: Battle, attackerId: string, damage: number, fighter: Fighter, healthBefore: number, now: Date): Strike {
  checkAttacker(b, attackerId)
  const entered = participantOf(b, attackerId)!.deathsAtEntry
  if ((entered !== undefined && fighter.deaths > entered) || healthBefore <= 0) throw new AttackerFallen(attackerId)
  const hit = Math.max(MIN_HIT, Math.min(damage, fighter.attack) - b.boss.defense)
  const dealt = Math.min(hit, b.bossRemainingHealth)
  const bossRemainingHealth = b.bossRemainingHealth - dealt
  const strikeBack = bossRemainingHealth === 0 ? 0 : Math.max(MIN_HIT, b.boss.strength - fighter.defense)
  const attackerFell = strikeBack > 0 && healthBefore - strikeBack <= 0
  const participants = withParticipant(b, attackerId, (p) => ({
    ...p, damageDealt: p.damageDealt + dealt, attacks: p.attacks + 1, fallen: attackerFell, deathsAtEntry: entered ?? fighter.deaths,
  }))
  const battle = concluded({ ...b, currentTurn: b.currentTurn + 1, bossRemainingHealth, participants }, now)
  return { battle, dealt, strikeBack, attackerFell }
}

/**
 * A participant that can fight no more (its avatar died, or is gone) is fallen for the battle; the
 * battle is lost when no one is left standing. The battle as it was when there is nothing to do
 * (over, not a participant, fallen already).
 */
export function fallOut(b: Battle, avatarId: string, now: Date): Battle {
  const p = participantOf(b, avatarId)
  if (b.status !== 'IN_PROGRESS' || !p || p.fallen) return b
  return concluded({ ...b, participants: withParticipant(b, avatarId, (x) => ({ ...x, fallen: true })) }, now)
}

/** Guild points for a battle won. */
export const pointsForVictory = (boss: Boss): number => Math.floor(boss.experienceReward / BATTLE_POINTS_DIVISOR)
