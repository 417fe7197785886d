import { setTimeout as sleep } from 'node:timers/promises'
import { AppError, ServiceUnavailable } from '../errors.js'
import { pgErrorCode, UNIQUE_VIOLATION } from '../db/database.js'

/**
 * Errors that mean another writer got there first, not that the database failed: a key answered
 * meanwhile, or (writes of many rows from several processes) a deadlock PostgreSQL broke.
 */
const LOST_RACES = new Set([UNIQUE_VIOLATION, '40P01', '40001'])

/** What an attempt answers when its guarded write found the state moved on: nothing was written. */
export const RACE_LOST = Symbol('race lost')

/** Tries after database errors before the caller is answered 503. */
const FAILED_ATTEMPTS = 3
/** Tries of a change that keeps losing races with other processes changing the same row. */
const RACE_ATTEMPTS = 30
const MAX_PAUSE_MS = 50

let madeAgain = 0

/**
 * Attempts of this process made again on fresh state (for /metrics): another writer changed the
 * aggregate first, or a refusal was decided on a remembered state. Near zero while each hot
 * aggregate has one owner, whose memory is then exact.
 */
export const attemptsMadeAgain = (): number => madeAgain

/**
 * Runs a read-decide-write attempt until it writes. The write is guarded (by the version that was
 * read, and by unique keys), so a race with another process writes nothing: the attempt is made
 * again on fresh state after a short random pause. The game's refusals (AppErrors) are answers and
 * pass through; other errors are the database's, retried and then answered 503, with nothing applied.
 */
export async function untilWritten<T>(what: string, attempt: () => Promise<T | typeof RACE_LOST>): Promise<T> {
  for (let tries = 1, failures = 0; ; tries++) {
    try {
      const answer = await attempt()
      if (answer !== RACE_LOST) return answer
      madeAgain++
    } catch (e) {
      if (e instanceof AppError) throw e
      const raced = LOST_RACES.has(pgErrorCode(e) ?? '')
      if (raced) madeAgain++
      else if (++failures >= FAILED_ATTEMPTS) {
        throw new ServiceUnavailable(`The database did not take the change of ${what} (${(e as Error).message}); nothing was applied.`)
      }
    }
    if (tries >= RACE_ATTEMPTS) throw new ServiceUnavailable(`${what} is changing too fast to apply this change; nothing was applied.`)
    await sleep(Math.random() * Math.min(MAX_PAUSE_MS, 2 ** tries))
  }
}
