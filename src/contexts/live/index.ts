import { lt } from 'drizzle-orm'
import type { Clock } from '../../platform/clock.js'
import { deleteSome } from '../../platform/db/bounded-delete.js'
import type { Database } from '../../platform/db/database.js'
import { on, type EventContract, type EventHandler, type EventOf } from '../../platform/events/contract.js'
import { exactlyOnceInBatches } from '../../platform/events/inbox.js'
import { Outbox } from '../../platform/events/outbox.js'
import { inboxPruning } from '../../platform/events/retention.js'
import { daysBefore, pruning } from '../../platform/jobs/retention.js'
import { contextModule } from '../../platform/module.js'
import type { AvatarClient } from '../avatar/client.js'
import { AvatarDied, AvatarLeveledUp } from '../avatar/events.js'
import { BattleLost, BattleWon, InviteSent } from '../guild/events.js'
import { QuestCompleted } from '../quest/events.js'
import { HabitMissed } from '../tracking/events.js'
import { InboxApp } from './app/inbox-app.js'
import * as notification from './domain/notification.js'
import type { NotificationDraft } from './domain/notification.js'
import { NOTIFICATION_RETENTION_DAYS } from './domain/rules.js'
import type { LiveDraft } from './events.js'
import { inboxRoutes } from './http/routes.js'
import { inbox, notifications, outbox as outboxTable } from './store/tables.js'

/** The live context: what the player is told of as it happens (DESIGN §9.2); so far the inbox. */
export const liveModule = contextModule({
  name: 'live',
  build(deps: { database: Database; clock: Clock; ports: { avatar: AvatarClient } }) {
    const outbox = new Outbox<LiveDraft>('live', outboxTable, deps.clock, deps.database)
    const app = new InboxApp({ database: deps.database, clock: deps.clock, avatars: deps.ports.avatar, outbox })
    /** Each event of `contract` becomes the notifications `draft` makes of it, with the event's inbox row. */
    const notifying = <C extends EventContract>(contract: C, draft: (payload: EventOf<C>['payload']) => NotificationDraft | NotificationDraft[]): EventHandler =>
      on(contract, exactlyOnceInBatches(deps.database, inbox, deps.clock, (events, tx) =>
        app.notify(tx, events.flatMap((e) => draft(e.payload))))) as EventHandler
    return {
      apiRoutes: async (f) => {
        await f.register(inboxRoutes, { app })
      },
      outbox,
      consumers: [
        notifying(AvatarLeveledUp, notification.leveledUp),
        notifying(AvatarDied, notification.died),
        notifying(HabitMissed, notification.habitMissed),
        notifying(QuestCompleted, notification.questCompleted),
        notifying(BattleWon, notification.battleWon),
        notifying(BattleLost, notification.battleLost),
        notifying(InviteSent, notification.invited),
      ],
      prune: [
        inboxPruning(deps.database, inbox),
        pruning(notifications, (h, limit) => deleteSome(deps.database.db, notifications, notifications.id,
          lt(notifications.createdAt, daysBefore(h.now, NOTIFICATION_RETENTION_DAYS)), limit)),
      ],
    }
  },
})
