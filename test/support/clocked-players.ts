import { MISSED_WINDOWS_JOB } from '../../src/contexts/tracking/index.js'
import type { ManualClock } from '../../src/platform/clock.js'
import type { TestApp } from './app.js'
import { newPlayer, type Player } from './players.js'

/**
 * Players of a suite whose test clock runs days ahead of the tokens' life: each player's token is
 * issued afresh as the clock moves. `app` is read when used (a suite builds it in beforeAll).
 */
export function clockedPlayers(app: () => TestApp, clock: ManualClock) {
  const players: Player[] = []
  async function moveTo(iso: string): Promise<void> {
    clock.set(new Date(iso))
    for (const p of players) p.auth = { authorization: `Bearer ${await app().issueToken(p.userId, 'player')}` }
  }
  async function player(): Promise<Player> {
    const p = await newPlayer(app())
    players.push(p)
    return p
  }
  /** Moves the clock, runs the missed-window job and lets its events land. */
  async function judgeAt(iso: string): Promise<void> {
    await moveTo(iso)
    await app().runJob(MISSED_WINDOWS_JOB)
    await app().settle()
  }
  return { moveTo, player, judgeAt }
}
