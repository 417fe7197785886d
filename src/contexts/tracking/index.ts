import { AvatarDeleted, MissedWindowSettled } from '../../contracts/events/avatar.js'
import { AccountDeleted } from '../../contracts/events/edge.js'
import type { TrackingDraft } from '../../contracts/events/tracking.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { on } from '../../platform/events/contract.js'
import { exactlyOnce } from '../../platform/events/inbox.js'
import { inboxPruning } from '../../platform/events/retention.js'
import { Outbox } from '../../platform/events/outbox.js'
import { daysBefore, pruning } from '../../platform/jobs/retention.js'
import { contextModule } from '../../platform/module.js'
import type { AvatarClient } from '../avatar/client.js'
import { HabitCommands } from './app/habit-commands.js'
import { HabitQueries } from './app/habit-queries.js'
import { TrackingJobs } from './app/tracking-jobs.js'
import { httpTrackingClient, inProcessTrackingClient, type TrackingClient } from './client.js'
import { reminderRecordsEndedBefore } from './domain/reminder.js'
import { ATTEND_KEYS_KEPT_DAYS, MISSED_JOB_EVERY_MS, REMINDER_JOB_EVERY_MS } from './domain/rules.js'
import { bulkAttendRoutes } from './http/bulk-routes.js'
import { habitRoutes } from './http/routes.js'
import { trackingServiceRoutes } from './http/service-routes.js'
import { settingsRoutes } from './http/settings-routes.js'
import { statsRoutes } from './http/stats-routes.js'
import { buildPortability, portabilityRoutes, type Portability } from './portability/index.js'
import { reminderRepo } from './store/window-records.js'
import { attendAnswers, inbox, outbox as outboxTable, remindersSent } from './store/tables.js'
import { attendanceStore } from './store/attendances.js'
import { TRACKING_PROBLEMS } from './http/problem-types.js'
import { habitAggregate } from './store/habit-aggregate.js'
import type { Habit } from './domain/habit.js'
import { AggregateWriter } from '../../platform/writer/writer.js'
import { NotFound } from '../../platform/errors.js'

export const MISSED_WINDOWS_JOB = 'tracking.missed-windows'
export const REMINDERS_JOB = 'tracking.reminders'

/** The tracking context: habits, their windows and completions, rewards and penalties as events. */
export const trackingModule = contextModule({
  name: 'tracking',
  problemTypes: TRACKING_PROBLEMS,
  calls: ['avatar'],
  remotePort: httpTrackingClient,
  routes: (h: { commands: HabitCommands; queries: HabitQueries; portability: Portability }) => {
    const portability = portabilityRoutes(h.portability)
    const { commands, queries } = h
    return {
      apiRoutes: async (f) => {
        await f.register(habitRoutes, { commands, queries })
        await f.register(bulkAttendRoutes, { commands })
        await f.register(settingsRoutes, { commands, queries })
        await f.register(statsRoutes, { queries })
        await f.register(portability.apiRoutes)
      },
      internalRoutes: async (f) => {
        await f.register(trackingServiceRoutes, { commands })
        await f.register(portability.internalRoutes)
      },
      rootRoutes: portability.rootRoutes,
    }
  },
  build(deps: { database: Database; clock: Clock; ports: { avatar: AvatarClient } }) {
    const outbox = new Outbox<TrackingDraft>('tracking', outboxTable, deps.clock, deps.database)
    const habits = new AggregateWriter<Habit, TrackingDraft>(habitAggregate(outbox), { database: deps.database, clock: deps.clock, missing: (id) => new NotFound('Habit', id) })
    const used = { database: deps.database, clock: deps.clock, avatars: deps.ports.avatar, outbox, habits }
    const commands = new HabitCommands(used)
    const queries = new HabitQueries(used)
    const jobs = new TrackingJobs(used)
    const portability = buildPortability(used)
    const port: TrackingClient = inProcessTrackingClient({ commands, queries, exports: portability.exports }, deps.database)
    return {
      handlers: { commands, queries, portability },
      outbox,
      port,
      consumers: [
        on(AvatarDeleted, exactlyOnce(deps.database, inbox, deps.clock, (e) => commands.deleteHabitsOfAvatar(e.payload.avatarId))),
        // A streak freeze took a missed window's penalty: the window shows FROZEN and the streak carries over it.
        on(MissedWindowSettled, exactlyOnce(deps.database, inbox, deps.clock, (e) =>
          e.payload.outcome === 'FROZEN' ? commands.recordFreeze(e.payload.habitId, e.payload.windowStart) : Promise.resolve())),
        // The account's avatars go by their own events (their habits with them); its feed goes with the account.
        on(AccountDeleted, exactlyOnce(deps.database, inbox, deps.clock, (e) => portability.calendar.forgetAccount(e.payload.userId))),
      ],
      jobs: [
        { name: MISSED_WINDOWS_JOB, everyMs: MISSED_JOB_EVERY_MS, run: async () => void (await jobs.judgeMissedWindows()) },
        { name: REMINDERS_JOB, everyMs: REMINDER_JOB_EVERY_MS, run: async () => void (await jobs.sendReminders()) },
      ],
      prune: [
        inboxPruning(deps.database, inbox),
        // A record of a reminder sent is needed while its window may still be current.
        pruning(remindersSent, (h, limit) => reminderRepo.pruneSome(deps.database.db, reminderRecordsEndedBefore(h.now), limit)),
        // An attend's key answers again for ATTEND_KEYS_KEPT_DAYS, or for the platform's retention when that is longer.
        pruning(attendAnswers, (h, limit) => {
          const kept = daysBefore(h.now, ATTEND_KEYS_KEPT_DAYS)
          return attendanceStore.pruneAnswers(deps.database.db, kept < h.retention ? kept : h.retention, limit)
        }),
      ],
    }
  },
})
