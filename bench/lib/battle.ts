/**
 * Every member of one guild attacking one boss at once, for a duration. A battle ends when its
 * turns run out (turnsPerMember × members); the leader then starts the next one, and the members
 * carry on. Attacks/s counts accepted attacks (204) over the whole duration, restarts included;
 * `standingRps` counts them only while a boss stands: over the time from each battle's start
 * (its answer) to the answer of its last accepted attack, without the members' refused attacks
 * on a boss just gone and the leader's request for the next one.
 */
import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { call } from './http.js'
import { percentile } from './load.js'
import type { Guild, Player } from './players.js'

export interface BattleResult {
  attacks: number
  rps: number
  p50: number
  p99: number
  /** Attacks refused because the battle had just ended or the attacker had fallen. */
  refused: number
  errors: number
  battles: number
  /** Accepted attacks per second of the time a boss stood. */
  standingRps: number
}

/** One battle as the bench saw it: when its start was answered, and its accepted attacks. */
interface Fought {
  startedAt: number
  attacks: number
  lastAnsweredAt: number
}

const round = (ms: number) => Math.round(ms * 100) / 100

export async function measureBattle(base: string, guild: Guild, bossType: string, durationS: number): Promise<BattleResult> {
  const startBattle = async () => ((await call(base, guild.leader.token, 'POST', '/api/v1/battles', {
    guildId: guild.id, bossType, requesterId: guild.leader.avatarId,
  })) as { id: string }).id

  const fought = new Map<string, Fought>()
  const begin = async () => {
    const id = await startBattle()
    const startedAt = performance.now()
    fought.set(id, { startedAt, attacks: 0, lastAnsweredAt: startedAt })
    return id
  }
  let current = await begin()
  let battles = 1
  let renewing: Promise<void> | undefined
  /** The first member to see `ended` over starts the next battle; the others wait for it. */
  const renew = async (ended: string) => {
    if (current !== ended) return
    renewing ??= begin().then((id) => {
      current = id
      battles++
    }).finally(() => {
      renewing = undefined
    })
    await renewing
  }

  const latencies: number[] = []
  let refused = 0
  let errors = 0
  let firstError: string | undefined
  const t0 = performance.now()
  const end = t0 + durationS * 1000

  // Plain keep-alive HTTP, as light a client as the other scenarios' (fetch costs the shared cores several times more).
  const agent = new Agent({ keepAlive: true, maxSockets: guild.members.length })
  const { hostname, port } = new URL(base)
  const post = (path: string, headers: Record<string, string>, body: string) => new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request({ agent, host: hostname, port, method: 'POST', path, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, text }))
    })
    req.on('error', reject)
    req.end(body)
  })

  const fight = async (p: Player) => {
    const headers = { ...p.auth, 'content-type': 'application/json' }
    const body = JSON.stringify({ damage: 1, attackerAvatarId: p.avatarId })
    while (performance.now() < end) {
      const battle = current
      const started = performance.now()
      const res = await post(`/api/v1/battles/${battle}/damage`, headers, body)
      const text = res.text
      const ms = performance.now() - started
      if (res.status === 204) {
        latencies.push(ms)
        const f = fought.get(battle)!
        f.attacks++
        f.lastAnsweredAt = performance.now()
      } else if (res.status === 400 && text.includes('/problems/battle-over')) {
        refused++
        await renew(battle)
      } else if (res.status === 400 && text.includes('/problems/attacker-fallen')) {
        // Fallen for this battle: wait for the next (the others end this one).
        refused++
        await new Promise((r) => setTimeout(r, 10))
      } else {
        errors++
        firstError ??= `${res.status} ${text.slice(0, 200)}`
        if (errors > 100) throw new Error(`battle: too many failed attacks, first: ${firstError}`)
      }
    }
  }
  await Promise.all(guild.members.map(fight))
  await renewing
  agent.destroy()
  const elapsed = (performance.now() - t0) / 1000
  if (firstError) console.warn(`battle: ${errors} failed attacks, first: ${firstError}`)
  latencies.sort((a, b) => a - b)
  const standingS = [...fought.values()].reduce((sum, f) => sum + (f.lastAnsweredAt - f.startedAt), 0) / 1000
  return {
    attacks: latencies.length,
    rps: latencies.length / elapsed,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    refused,
    errors,
    battles,
    standingRps: standingS > 0 ? latencies.length / standingS : 0,
  }
}
