/**
 * The soak's mixed workload (bench/soak.ts): a population of players made through the API, and
 * the operations drawn from it by weight, each one request. The world keeps what the next
 * operations need (habits not yet attended, who holds an item, which quests each avatar joined,
 * the guild's current battle) so that every request is one a real player could make and expects
 * success; a refusal the game itself gives (an attack on a battle that has just ended, an attacker
 * fallen in it) is counted as refused, anything else unexpected as an error.
 */
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { Client, Reply } from './client.js'
import { call } from './http.js'
import { guildOf, register, type Guild, type Player } from './players.js'
import { inBatches, nowLocal } from './scenarios.js'

/** The operations scheduled, and their share of the mix (per 100). */
export const MIX = {
  'read avatar': 20,
  'read habits': 8,
  'read leaderboard': 4,
  'read quests': 4,
  earn: 8,
  'create habit': 12,
  attend: 10,
  buy: 5,
  sell: 5,
  attack: 12,
  'create quest': 1,
  'join quest': 10,
  register: 1,
} as const

export type Scheduled = keyof typeof MIX
/** What is recorded: the scheduled operations and the one the world starts by itself (a new battle when one ends). */
export type Operation = Scheduled | 'start battle'
export const OPERATIONS: Operation[] = [...(Object.keys(MIX) as Scheduled[]), 'start battle']

export interface Result {
  op: Operation
  outcome: 'ok' | 'refused' | 'error'
  /** Why it was refused or failed: the status and the start of the body, or the error. */
  detail?: string
  /** An operation this one made the world start (the next battle), timed from `startedAt`. */
  followUp?: { startedAt: number; done: Promise<Result> }
}

/** What every buy and sell trades: cheap enough for level 1 (price 30, sold back for 15). */
const ITEM = encodeURIComponent('Rusty Shortsword')
/** Money each trader starts with: buys cost 15 net a round trip, so it lasts any soak. */
const STAKE = 1_000_000
/** Damage asked for in an attack; what is dealt is capped by the attacker's attack. */
const DAMAGE = 1_000
/** Habits made per player before the load, so attends have some from the start. */
const HABITS_EACH = 2

interface Trader extends Player {
  marketplaceId: string
  holding: boolean
  /** A buy or sell of this trader is under way. */
  busy: boolean
}

interface Habit {
  id: string
  owner: Player
}

export interface World {
  /** Everyone: readers, earners, habit makers, quest joiners; registrations add to it. */
  players: Player[]
  traders: Trader[]
  /** Habits made and not attended yet, oldest first. */
  unattended: Habit[]
  quests: string[]
  /** `questId avatarId` of every participation. */
  joined: Set<string>
  guild: Guild
  boss: string
  battle: string
  /** The next battle being started, while it is. */
  renewing?: Promise<void> | undefined
}

export interface PopulationSpec {
  players: number
  guild: number
  quests: number
  boss: string
}

const questBody = (owner: Player, n: number) => ({
  name: `Soak quest ${n}`, duration: 'P7D', reward: { experience: 20, money: 10 }, ownerAvatarId: owner.avatarId,
  habits: [{ habitId: 'daily', title: `Quest ${n} daily`, recurrence: { type: 'DAILY' } }],
})
const habitBody = (owner: Player, n: number) => ({ avatarId: owner.avatarId, title: `soak ${n}`, recurrenceType: 'DAILY' })
const battleBody = (w: Pick<World, 'guild' | 'boss'>) => ({ guildId: w.guild.id, bossType: w.boss, requesterId: w.guild.leader.avatarId })

/**
 * The population, through the API: `players` players and a guild of `guild` more (armored, see
 * guildOf), each with its marketplace and STAKE money, HABITS_EACH habits each, `quests` quests and
 * the guild's first battle.
 */
export async function populate(base: string, spec: PopulationSpec): Promise<World> {
  const guild = await guildOf(base, spec.guild)
  const players = [...(await inBatches(spec.players, 4, (i) => register(base, `Soak ${i}`))), ...guild.members]
  const traders = await inBatches(players.length, 8, async (i) => {
    const p = players[i]!
    const { id } = (await call(base, p.token, 'POST', '/api/v1/marketplaces', { avatarId: p.avatarId })) as { id: string }
    await call(base, p.token, 'POST', `/api/v1/avatars/${p.avatarId}/money/earn`, { amount: STAKE })
    return { ...p, marketplaceId: id, holding: false, busy: false }
  })
  const unattended = await inBatches(players.length * HABITS_EACH, 8, async (i) => {
    const owner = players[i % players.length]!
    const { id } = (await call(base, owner.token, 'POST', '/api/v1/habits', habitBody(owner, i))) as { id: string }
    return { id, owner }
  })
  const quests = await inBatches(spec.quests, 4, async (i) =>
    ((await call(base, players[i]!.token, 'POST', '/api/v1/quests', questBody(players[i]!, i))) as { id: string }).id)
  const { id: battle } = (await call(base, guild.leader.token, 'POST', '/api/v1/battles', battleBody({ guild, boss: spec.boss }))) as { id: string }
  return { players, traders, unattended, quests, joined: new Set(), guild, boss: spec.boss, battle }
}

/** A small seeded generator (mulberry32), so two runs draw the same sequence of operations. */
function random(seed: number): () => number {
  let s = seed
  return () => {
    s = (s + 0x6d2b79f5) | 0
    let t = Math.imul(s ^ (s >>> 15), 1 | s)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Draws operations by their weights and runs them against the world. */
export class Mix {
  private readonly next: () => number
  private readonly weights = Object.entries(MIX) as [Scheduled, number][]
  private readonly total = this.weights.reduce((sum, [, w]) => sum + w, 0)
  private made = 0

  constructor(private readonly world: World, private readonly client: Client, seed = 15) {
    this.next = random(seed)
  }

  draw(): Scheduled {
    let x = this.next() * this.total
    for (const [op, w] of this.weights) {
      if ((x -= w) < 0) return op
    }
    return this.weights[0]![0]
  }

  /** Runs one operation; some fall back to a neighbour when the world has nothing for them (an attend with no habit left makes one). */
  run(op: Scheduled): Promise<Result> {
    switch (op) {
      case 'read avatar': {
        const p = this.player()
        return this.expect(op, 200, 'GET', `/api/v1/avatars/${p.avatarId}`, p)
      }
      case 'read habits': {
        const p = this.player()
        return this.expect(op, 200, 'GET', `/api/v1/habits?avatarId=${p.avatarId}&limit=50`, p)
      }
      case 'read leaderboard': return this.expect(op, 200, 'GET', '/api/v1/guilds/leaderboard?limit=20', this.player())
      case 'read quests': return this.expect(op, 200, 'GET', '/api/v1/quests?limit=20', this.player())
      case 'earn': {
        const p = this.player()
        return this.expect(op, 204, 'POST', `/api/v1/avatars/${p.avatarId}/money/earn`, p, { amount: 1 })
      }
      case 'create habit': return this.createHabit()
      case 'attend': return this.attend()
      case 'buy':
      case 'sell': return this.trade(op)
      case 'attack': return this.attack()
      case 'create quest': return this.createQuest()
      case 'join quest': return this.joinQuest()
      case 'register': return this.register()
    }
  }

  private pick<T>(from: T[]): T {
    return from[Math.floor(this.next() * from.length)]!
  }

  private player(): Player {
    return this.pick(this.world.players)
  }

  private async expect(op: Operation, status: number, method: 'GET' | 'POST', path: string, p: Player | undefined, body?: unknown): Promise<Result & { reply?: Reply }> {
    const reply = await this.client.send(method, path, p?.token, body)
    return reply.status === status ? { op, outcome: 'ok', reply } : failed(op, reply)
  }

  private async createHabit(): Promise<Result> {
    const owner = this.player()
    const r = await this.expect('create habit', 200, 'POST', '/api/v1/habits', owner, habitBody(owner, this.made++))
    if (r.reply) this.world.unattended.push({ id: (JSON.parse(r.reply.text) as { id: string }).id, owner })
    return strip(r)
  }

  private async attend(): Promise<Result> {
    const habit = this.world.unattended.shift()
    if (!habit) return this.createHabit()
    return strip(await this.expect('attend', 204, 'POST', `/api/v1/habits/${habit.id}/attend`, habit.owner, { date: nowLocal() }))
  }

  /** A buy by a trader holding nothing, or a sell by one holding the item; the other when none is free for this one. */
  private async trade(op: 'buy' | 'sell'): Promise<Result> {
    const free = (o: 'buy' | 'sell') => this.world.traders.filter((t) => !t.busy && t.holding === (o === 'sell'))
    let kind = op
    let candidates = free(kind)
    if (candidates.length === 0) {
      kind = op === 'buy' ? 'sell' : 'buy'
      candidates = free(kind)
    }
    if (candidates.length === 0) return this.run('read avatar')
    const t = this.pick(candidates)
    t.busy = true
    try {
      const path = kind === 'buy' ? `/api/v1/marketplaces/${t.marketplaceId}/items/${ITEM}/buy` : `/api/v1/marketplaces/${t.marketplaceId}/sold-items/${ITEM}/sell`
      const r = await this.expect(kind, 204, 'POST', path, t)
      if (r.outcome === 'ok') t.holding = kind === 'buy'
      return strip(r)
    } finally {
      t.busy = false
    }
  }

  private async attack(): Promise<Result> {
    const w = this.world
    const member = this.pick(w.guild.members)
    const battle = w.battle
    const reply = await this.client.send('POST', `/api/v1/battles/${battle}/damage`, member.token, { damage: DAMAGE, attackerAvatarId: member.avatarId })
    if (reply.status === 204) return { op: 'attack', outcome: 'ok' }
    if (reply.status === 400 && reply.text.includes('/problems/battle-over')) {
      const followUp = this.startNextBattle(battle)
      return { op: 'attack', outcome: 'refused', detail: 'battle-over', ...(followUp ? { followUp } : {}) }
    }
    if (reply.status === 400 && reply.text.includes('/problems/attacker-fallen')) return { op: 'attack', outcome: 'refused', detail: 'attacker-fallen' }
    return failed('attack', reply)
  }

  /** The first attack to find `ended` over starts the next battle (the leader asks); the others go on attacking. */
  private startNextBattle(ended: string): Result['followUp'] {
    const w = this.world
    if (w.battle !== ended || w.renewing) return undefined
    const startedAt = performance.now()
    const done = this.expect('start battle', 200, 'POST', '/api/v1/battles', w.guild.leader, battleBody(w))
      .then((r): Result => {
        if (r.reply) w.battle = (JSON.parse(r.reply.text) as { id: string }).id
        return strip(r)
      }, (e: unknown): Result => ({ op: 'start battle', outcome: 'error', detail: (e as Error).message ?? String(e) }))
    w.renewing = done.then(() => {
      w.renewing = undefined
    })
    return { startedAt, done }
  }

  private async createQuest(): Promise<Result> {
    const owner = this.player()
    const r = await this.expect('create quest', 200, 'POST', '/api/v1/quests', owner, questBody(owner, this.made++))
    if (r.reply) this.world.quests.push((JSON.parse(r.reply.text) as { id: string }).id)
    return strip(r)
  }

  /** A player joins a quest it is not in yet; its copies of the quest's habits are attended later. */
  private async joinQuest(): Promise<Result> {
    const w = this.world
    for (let tries = 0; tries < 10; tries++) {
      const p = this.player()
      const quest = this.pick(w.quests)
      const key = `${quest} ${p.avatarId}`
      if (w.joined.has(key)) continue
      w.joined.add(key)
      const r = await this.expect('join quest', 200, 'POST', `/api/v1/quests/${quest}/participants`, p, { avatarId: p.avatarId })
      if (r.reply) {
        for (const h of (JSON.parse(r.reply.text) as { habits: { copyHabitId: string }[] }).habits) w.unattended.push({ id: h.copyHabitId, owner: p })
      }
      return strip(r)
    }
    return this.createQuest()
  }

  private async register(): Promise<Result> {
    const n = this.made++
    const r = await this.expect('register', 200, 'POST', '/auth/register', undefined, { name: `Soak late ${n}`, email: `soak-${randomUUID()}@example.com`, password: 'soak password' })
    if (r.reply) {
      const { token, userId } = JSON.parse(r.reply.text) as { token: string; userId: string }
      this.world.players.push({ token, avatarId: userId, auth: { authorization: `Bearer ${token}` } })
    }
    return strip(r)
  }
}

const failed = (op: Operation, reply: Reply): Result => ({ op, outcome: 'error', detail: `${reply.status} ${reply.text.slice(0, 200)}` })
const strip = ({ op, outcome, detail }: Result): Result => (detail === undefined ? { op, outcome } : { op, outcome, detail })
