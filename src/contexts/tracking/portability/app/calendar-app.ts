import { createHash } from 'node:crypto'
import type { Principal } from '../../../../platform/auth/principal.js'
import type { Clock } from '../../../../platform/clock.js'
import type { Database } from '../../../../platform/db/database.js'
import { Forbidden, NotFound } from '../../../../platform/errors.js'
import { newSecret } from '../../../../platform/ids.js'
import { habitRepo } from '../../store/habits.js'
import { settingsRepo } from '../../store/settings.js'
import { habitCalendar } from '../domain/calendar.js'
import { CALENDAR_HABITS_MAX, CALENDAR_SECRET_BYTES } from '../domain/rules.js'
import { calendarFeedRepo } from '../store/calendar-feeds.js'

export interface CalendarDeps {
  database: Database
  clock: Clock
}

/** What the feed's address is looked up by: a secret is shown once and kept only as this. */
const digest = (secret: string) => createHash('sha256').update(secret).digest('hex')

/** A feed is an account's: a service token stands for no account. */
function requireAccount(p: Principal): void {
  if (p.role === 'service') throw new Forbidden('A calendar feed belongs to a player account; a service token has none.')
}

/**
 * An account's calendar feed (DESIGN §9.4): a secret address that answers without a token with the
 * habits of every avatar of the account. One address at a time: a new one replaces the old.
 */
export class CalendarApp {
  constructor(private readonly d: CalendarDeps) {}

  /** A new secret for the caller's feed; the one before, if any, stops answering at once. `created`: there was none. */
  async rotate(p: Principal): Promise<{ secret: string; created: boolean }> {
    requireAccount(p)
    const secret = newSecret(CALENDAR_SECRET_BYTES)
    const created = await this.d.database.transaction((tx) => calendarFeedRepo.replace(tx, p.userId, digest(secret), this.d.clock.now()))
    return { secret, created }
  }

  /** The caller's feed stops answering; without one, nothing changes. */
  async revoke(p: Principal): Promise<void> {
    requireAccount(p)
    await this.forgetAccount(p.userId)
  }

  /** An account was deleted: its feed goes (again: nothing). */
  async forgetAccount(userId: string): Promise<void> {
    await this.d.database.transaction((tx) => calendarFeedRepo.delete(tx, userId))
  }

  /**
   * The iCalendar text behind a secret. A secret never made, replaced or revoked is answered alike,
   * so the answer tells nothing of whether an address once worked.
   */
  async feed(secret: string): Promise<string> {
    const q = this.d.database.current()
    const userId = await calendarFeedRepo.ownerOf(q, digest(secret))
    if (userId === undefined) throw new NotFound('Calendar feed')
    const habits = await habitRepo.activeOfOwner(q, userId, CALENDAR_HABITS_MAX)
    const histories = await settingsRepo.historiesOf(q, habits.map((h) => h.avatarId))
    return habitCalendar(habits.map((habit) => ({ habit, history: histories.get(habit.avatarId)! })), this.d.clock.now())
  }
}
