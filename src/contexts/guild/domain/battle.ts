/**
 * Boss battle rules. Pure. An attack is judged whole inside the battle: the hit, the boss's
 * strike-back, and whether it fells the attacker. An avatar enters the fight when the battle starts
 * (or, if it could not be read then, with its first attack): what it brings (its owner, attack,
 * defense and health) is kept by the battle, which from then on keeps the attacker's health
 * itself (its own ledger), so a fall is known at once, without waiting for the avatar context to
 * apply the strike-back (which it does after commit, from an event), and attacks need nothing read
 * of the avatar.
 */
import { AttackerFallen, BattleOver, NotAParticipant } from './errors.js'
import { BATTLE_POINTS_DIVISOR, BOSSES, MIN_HIT, type Boss, type BossType } from './rules.js'

export type BattleStatus = 'IN_PROGRESS' | 'WON' | 'LOST'

export interface Participant {
  avatarId: string
  fallen: boolean
  damageDealt: number
  attacks: number
  /** The participant's health in this battle: as it entered, then as each strike-back left it; absent until it enters. */
  health?: number | undefined
  /** What the avatar brought when it entered (the start, or its first attack), kept for the rest of the battle. */
  fighter?: EnteredFighter | undefined
}

/** An attacker as it entered the fight: gear changed later does not change how it fights in this battle. */
interface EnteredFighter {
  /** The user owning the avatar (an avatar's owner never changes). */
  ownerId: string
  attack: number
  defense: number
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

/** What an attacker brings to its first attack of a battle (from the avatar context, read before it). */
export interface Fighter extends EnteredFighter {
  /** The avatar's health as it reported it; strike-backs of this battle may not have reached it yet. */
  health: number
}

/**
 * The attacker has not entered this battle yet and nothing was read of it: its first attack needs
 * its fighter read from the avatar context. Not a refusal: the caller reads and attacks again.
 */
export class FighterNotRead extends Error {
  constructor(readonly avatarId: string) {
    super(`Avatar '${avatarId}' has not entered this battle; read its fighter first.`)
  }
}

interface Strike {
  battle: Battle
  /** Health the boss lost (never more than it had). */
  dealt: number
  /** Damage the boss strikes back with; 0 when it fell. */
  strikeBack: number
  /** The strike-back took the attacker's last health: fallen for this battle. */
  attackerFell: boolean
}

/**
 * A battle of the guild's members now. Those whose fighter was read (`fighters`, by avatar id)
 * enter the fight at once, as they are now; one that could not be read enters with its first
 * attack, which reads it then.
 */
export function startBattle(b: { id: string; guildId: string; bossType: BossType; memberIds: string[]; fighters?: ReadonlyMap<string, Fighter>; now: Date }): Battle {
  const boss = BOSSES[b.bossType]
  const entering = (avatarId: string): Participant => {
    const read = b.fighters?.get(avatarId)
    const joined = { avatarId, fallen: false, damageDealt: 0, attacks: 0 }
    if (!read) return joined
    const { ownerId, attack, defense, health } = read
    return { ...joined, health, fighter: { ownerId, attack, defense } }
  }
  return {
    id: b.id,
    guildId: b.guildId,
    bossType: b.bossType,
    boss,
    status: 'IN_PROGRESS',
    currentTurn: 0,
    numOfTurns: boss.turnsPerMember * b.memberIds.length,
    bossRemainingHealth: boss.health,
    participants: b.memberIds.map(entering),
    startedAt: b.now,
    endedAt: null,
  }
}

const participantOf = (b: Battle, avatarId: string) => b.participants.find((p) => p.avatarId === avatarId)

/** The attacker as it entered this battle, or undefined before its first attack (or when it is no participant). */
export const enteredFighter = (b: Battle, avatarId: string): EnteredFighter | undefined => participantOf(b, avatarId)?.fighter

/** Who may attack now: throws when the battle is over, or the avatar is not in it or has fallen. */
function checkAttacker(b: Battle, avatarId: string): void {
  if (b.status !== 'IN_PROGRESS') throw new BattleOver(b.status)
  const p = participantOf(b, avatarId)
  if (!p) throw new NotAParticipant(avatarId)
  if (p.fallen) throw new AttackerFallen(avatarId)
}

/** How the participant fights in this battle, and the health it has in it before this attack. */
function inTheFight(p: Participant, fighter: Fighter | undefined): { entered: EnteredFighter; health: number } {
  // A fighter is kept together with its health in the battle (both written when it entered).
  if (p.fighter) return { entered: p.fighter, health: p.health ?? 0 }
  if (!fighter) throw new FighterNotRead(p.avatarId)
  const { ownerId, attack, defense } = fighter
  return { entered: { ownerId, attack, defense }, health: Math.min(fighter.health, p.health ?? fighter.health) }
}

/**
 * An attack uses one turn: dealt = max(1, min(damage, attack) − boss defense). If the boss stands,
 * it strikes back with max(1, boss strength − defense), taken from the attacker's health in this
 * battle. The attacker fights as it entered the battle (`EnteredFighter`). One that did not enter
 * at the start enters with its first attack: `fighter` is what was read of it, and it enters with
 * the lower of the health it reported and what the battle left it with (a battle stored without
 * its fighters). Health gained or lost outside the battle meanwhile does not count. An
 * attacker left with none has fallen. Boss at 0: WON; turns used up or everyone fallen: LOST.
 * Throws FighterNotRead for a first attack without `fighter`.
 */
export function strike(b: Battle, attackerId: string, damage: number, fighter: Fighter | undefined, now: Date): Strike {
  checkAttacker(b, attackerId)
  const { entered, health: healthBefore } = inTheFight(participantOf(b, attackerId)!, fighter)
  const hit = Math.max(MIN_HIT, Math.min(damage, entered.attack) - b.boss.defense)
  const dealt = Math.min(hit, b.bossRemainingHealth)
  const bossRemainingHealth = b.bossRemainingHealth - dealt
  const won = bossRemainingHealth === 0
  const strikeBack = won ? 0 : Math.max(MIN_HIT, b.boss.strength - entered.defense)
  const health = Math.max(0, healthBefore - strikeBack)
  const attackerFell = strikeBack > 0 && health === 0
  const participants = b.participants.map((p) => p.avatarId !== attackerId ? p : {
    ...p, damageDealt: p.damageDealt + dealt, attacks: p.attacks + 1, health, fallen: attackerFell, fighter: entered,
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
