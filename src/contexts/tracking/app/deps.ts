import type { Clock } from '../../../platform/clock.js'
import type { Database } from '../../../platform/db/database.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import type { AvatarClient } from '../../avatar/client.js'
import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import type { AggregateWriter } from '../../../platform/writer/writer.js'
import type { Habit } from '../domain/habit.js'

/** What the tracking context's use cases work with; each part of it takes what it needs. */
export interface TrackingDeps {
  database: Database
  outbox: Outbox<TrackingDraft>
  clock: Clock
  avatars: AvatarClient
  /** The platform writer of habits, for changes made in a transaction (it alone sets their versions). */
  habits: AggregateWriter<Habit, TrackingDraft>
}
