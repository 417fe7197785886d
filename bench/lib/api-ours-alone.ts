/**
 * The scenarios of `npm run bench` that only the platform has, run after the floor has stopped:
 * attends on one avatar end to end, attend → experience visible, and a guild battle (with the
 * hot earn again at the battle's concurrency, right before it).
 */
import {
  ATTEND_WARMUP, ATTENDS, BATTLE, BATTLE_STANDING, BOSS, CONNECTIONS, DURATION, EARN_HOT_AT_GUILD, earnBody, GUILD, json, PROBES, rows, scenario,
  selected, type Engine, type Row,
} from './api-run.js'
import { measureBattle } from './battle.js'
import { load } from './load.js'
import { guildOf, type Player } from './players.js'
import { measureAttendsEndToEnd, measureRewardDelay } from './scenarios.js'
import { fmt } from './table.js'

export async function measureOursAlone(engine: Engine, base: string, hot: Player): Promise<void> {
  if (ATTENDS > 0 && selected('one-avatar')) {
    await scenario('ours', engine, `attend end to end (${ATTENDS} distinct habits)`, async () => {
      if (ATTEND_WARMUP > 0) await measureAttendsEndToEnd(base, hot.token, hot.avatarId, ATTEND_WARMUP, CONNECTIONS)
      const e2e = await measureAttendsEndToEnd(base, hot.token, hot.avatarId, ATTENDS, CONNECTIONS)
      return {
        rps: e2e.perSecond, p50: e2e.requests.p50, p99: e2e.requests.p99, requests: ATTENDS,
        note: `every reward visible after ${Math.round(e2e.elapsedMs)} ms; the requests alone ${Math.round(e2e.requests.rps)}/s`,
      }
    })
  }
  if (PROBES > 0 && selected('probes')) await scenario('ours', engine, `attend → experience visible (${PROBES} sequential)`, () => measureRewardDelay(base, hot.token, hot.avatarId, PROBES))
  if (GUILD > 0 && selected('battle')) {
    await scenario('ours', engine, EARN_HOT_AT_GUILD, async () => {
      const earn = await load({ url: `${base}/api/v1/avatars/${hot.avatarId}/money/earn`, headers: { ...hot.auth, ...json }, ...earnBody, connections: GUILD, duration: DURATION })
      return { ...earn, note: 'ours alone, right before the battle' }
    })
    let standing: Pick<Row, 'rps' | 'requests' | 'note'> | undefined
    await scenario('ours', engine, BATTLE, async () => {
      const guild = await guildOf(base, GUILD)
      const b = await measureBattle(base, guild, BOSS, DURATION)
      standing = { rps: b.standingRps, requests: b.attacks, note: `the same attacks over the ${fmt(b.attacks / b.standingRps, 1)} s bosses stood (each battle from its start to its last attack)` }
      return { rps: b.rps, p50: b.p50, p99: b.p99, requests: b.attacks, errors: b.errors, note: `${b.battles} battle${b.battles === 1 ? '' : 's'} of ${BOSS}; ${b.refused} attacks refused (battle just over / attacker fallen)` }
    })
    if (standing) rows.push({ target: 'ours', engine, scenario: BATTLE_STANDING, ...standing })
  }
}
