import type { Principal } from '../../../platform/auth/principal.js'
import { BadRequest } from '../../../platform/errors.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import { addDays, dayStart, parseLocalDate, type LocalDate, type Window } from '../../../platform/time/index.js'
import { requireOwnedAvatar } from '../../avatar/client.js'
import * as rules from '../domain/habit.js'
import type { Habit } from '../domain/habit.js'
import { COMPLETION_RATE_SPANS, WINDOWS_VIEW_DEFAULT_DAYS, WINDOWS_VIEW_FIRST_DAY, WINDOWS_VIEW_LAST_DAY, WINDOWS_VIEW_MAX, type ReportPeriod } from '../domain/rules.js'
import { currentSettings, frameOf, settingsFor, todayOf, type DaySettings, type SettingsEntry } from '../domain/settings.js'
import * as stats from '../domain/stats.js'
import { firstWindowFrom, windowsOver, type WindowView } from '../domain/window-status.js'
import { habitRepo } from '../store/habits.js'
import { settingsRepo } from '../store/settings.js'
import { completionRepo, completionsBetween, missedRepo } from '../store/window-records.js'
import { authorizeHabit } from './attend-batch.js'
import type { TrackingDeps } from './deps.js'

/** A habit as its owner sees it now, with its avatar's settings. */
export interface HabitSnapshot {
  habit: Habit
  history: SettingsEntry[]
  streak: number
}

/** A habit's stats (GET /habits/{id}/stats). */
export type HabitStats = stats.HabitRates & { currentStreak: number; bestStreak: number; totalCompletions: number }

/** An avatar's report of a week or a month (GET /avatars/{id}/report). */
export interface AvatarReport extends stats.PeriodDays {
  period: ReportPeriod
  habits: ({ habitId: string; title: string } & stats.WindowCounts)[]
  experience: number
  money: number
}

/** What the tracking context answers about habits, their windows and an avatar's days. Habits are private to the owner of their avatar. */
export class HabitQueries {
  constructor(private readonly d: Pick<TrackingDeps, 'database' | 'clock' | 'avatars'>) {}

  private snapshot(habit: Habit, history: SettingsEntry[]): HabitSnapshot {
    return { habit, history, streak: rules.currentStreak(habit, history, this.d.clock.now()) }
  }

  private history(avatarId: string): Promise<SettingsEntry[]> {
    return settingsRepo.history(this.d.database.current(), avatarId)
  }

  async get(p: Principal, id: string): Promise<HabitSnapshot> {
    const habit = await habitRepo.get(this.d.database.current(), id)
    authorizeHabit(p, habit)
    return this.snapshot(habit, await this.history(habit.avatarId))
  }

  async completionHistory(p: Principal, id: string): Promise<string[]> {
    await this.get(p, id)
    return completionRepo.history(this.d.database.current(), id)
  }

  /** The habit's windows overlapping the days [from, to), with what became of each (see `windowsOver`). */
  async windows(p: Principal, id: string, span: { from?: string | undefined; to?: string | undefined }): Promise<WindowView[]> {
    const { habit: h, history } = await this.get(p, id)
    const to = span.to ?? addDays(todayOf(history, h.ownTimeZone, this.d.clock.now()), 1)
    const from = span.from ?? addDays(to, -WINDOWS_VIEW_DEFAULT_DAYS)
    if (!parseLocalDate(from)) throw new BadRequest(`'${from}' is not a date like 2026-03-02.`, 'invalid-date', [{ path: '/from', message: 'must be a date YYYY-MM-DD' }])
    if (!parseLocalDate(to)) throw new BadRequest(`'${to}' is not a date like 2026-03-02.`, 'invalid-date', [{ path: '/to', message: 'must be a date YYYY-MM-DD' }])
    if (to <= from) throw new BadRequest('The span is empty: to must come after from.', 'invalid-span', [{ path: '/to', message: 'must be after from' }])
    if (from < WINDOWS_VIEW_FIRST_DAY) throw new BadRequest(`from must be ${WINDOWS_VIEW_FIRST_DAY} or later.`, 'invalid-date', [{ path: '/from', message: `must be ${WINDOWS_VIEW_FIRST_DAY} or later` }])
    if (to > WINDOWS_VIEW_LAST_DAY) throw new BadRequest(`to must be ${WINDOWS_VIEW_LAST_DAY} or earlier.`, 'invalid-date', [{ path: '/to', message: `must be ${WINDOWS_VIEW_LAST_DAY} or earlier` }])
    return this.windowsOf(h, history, firstWindowFrom(h, from), to)
  }

  /** The habit's windows from `first` to the day `to` (excluded), read with their completions and judgements. */
  private async windowsOf(h: Habit, history: SettingsEntry[], first: Window, to: LocalDate): Promise<WindowView[]> {
    const q = this.d.database.current()
    const [completed, judged] = await Promise.all([completionsBetween(q, h.id, first.start, to), missedRepo.between(q, h.id, first.start, to)])
    return windowsOver(h, history, { slots: completed.map((c) => c.slot), judged }, first, to, this.d.clock.now(), WINDOWS_VIEW_MAX)
  }

  /**
   * A habit's completion rates over its last 7, 30 and 365 days, its strength over the last 365,
   * its streaks and how many completions it has (stats.ts says what counts).
   */
  async stats(p: Principal, id: string): Promise<HabitStats> {
    const { habit: h, history, streak } = await this.get(p, id)
    const today = todayOf(history, h.ownTimeZone, this.d.clock.now())
    // A year of daily windows is the most there can be: WINDOWS_VIEW_MAX holds them.
    const first = firstWindowFrom(h, addDays(today, 1 - COMPLETION_RATE_SPANS.days365))
    const [windows, totalCompletions] = await Promise.all([
      this.windowsOf(h, history, first, addDays(today, 1)), completionRepo.count(this.d.database.current(), id),
    ])
    return { ...stats.habitRates(windows, today), currentStreak: streak, bestStreak: h.bestStreak, totalCompletions }
  }

  /**
   * The week or month holding `date` (default today, in the avatar's days): each habit's due windows
   * that end in it by outcome, and what the avatar earned in it (the avatar context keeps that).
   */
  async report(p: Principal, avatarId: string, asked: { period: ReportPeriod; date?: string | undefined }): Promise<AvatarReport> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    const history = await this.history(avatarId)
    const now = this.d.clock.now()
    const days = stats.periodHolding(asked.period, stats.reportDay(asked.date, todayOf(history, null, now)))
    const frame = frameOf(settingsFor(history, days.from), null)
    const earned = await this.d.avatars.earnings(avatarId, dayStart(days.from, frame), dayStart(days.to, frame))
    const q = this.d.database.current()
    const habits = await habitRepo.allOfAvatar(q, avatarId)
    const firsts = habits.map((h) => firstWindowFrom(h, days.from))
    const since = firsts.reduce((min, w) => (w.start < min ? w.start : min), days.from)
    const ids = habits.map((h) => h.id)
    const [slots, judged] = await Promise.all([completionRepo.slotsOfHabits(q, ids, since, days.to), missedRepo.ofHabitsBetween(q, ids, since, days.to)])
    return {
      period: asked.period,
      ...days,
      // An archived habit is listed only for a period something of it was due in.
      habits: habits.flatMap((h, i) => {
        const records = { slots: slots.get(h.id) ?? [], judged: judged.get(h.id) ?? new Map<LocalDate, string>() }
        const counts = stats.countInPeriod(windowsOver(h, history, records, firsts[i]!, days.to, now, WINDOWS_VIEW_MAX), days)
        return h.archived && counts.due === 0 ? [] : [{ habitId: h.id, title: h.title, ...counts }]
      }),
      experience: earned.experience,
      money: earned.money,
    }
  }

  /** A page of the avatar's habits, oldest first; with `archived`, only those archived (true) or not (false). */
  async listOfAvatar(p: Principal, avatarId: string, asked: PageRequest & { archived?: boolean | undefined }): Promise<Page<HabitSnapshot>> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, '/avatarId')
    const q = this.d.database.current()
    const [page, history] = await Promise.all([readPage(asked, {
      names: 'a habit of this list',
      positionOf: (cursor) => habitRepo.positionOf(q, avatarId, cursor),
      fetch: (after, count) => habitRepo.listOfAvatar(q, avatarId, count, after, asked.archived),
      keyOf: (h) => h.id,
    }), this.history(avatarId)])
    return { items: page.items.map((h) => this.snapshot(h, history)), next: page.next }
  }

  /** The avatar's day settings now (the defaults until changed). */
  async settings(p: Principal, avatarId: string): Promise<DaySettings> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    const { from: _from, ...now } = currentSettings(await this.history(avatarId))
    return now
  }
}
