import type { LiveDraft } from '../../../contracts/events/live.js'
import type { Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database, Tx } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import type { Outbox } from '../../../platform/events/outbox.js'
import { newId } from '../../../platform/ids.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import { requireOwnedAvatar, type AvatarClient } from '../../avatar/client.js'
import type { Notification, NotificationDraft } from '../domain/notification.js'
import { EXPORT_NOTIFICATIONS_PAGE } from '../domain/rules.js'
import { notificationRepo } from '../store/notifications.js'

interface InboxDeps {
  database: Database
  clock: Clock
  avatars: AvatarClient
  outbox: Outbox<LiveDraft>
}

interface InboxPage extends Page<Notification> {
  unreadCount: number
}

/** The player's inbox: notifications made from events, read and marked read by their owner. */
export class InboxApp {
  constructor(private readonly d: InboxDeps) {}

  /** The avatars were deleted (AvatarDeleted, in the consumer's transaction): their inboxes go with them. */
  async forget(tx: Tx, avatarIds: string[]): Promise<void> {
    await notificationRepo.deleteOfAvatars(tx, avatarIds)
  }

  /** Stores the drafts (in the consumer's transaction), each announced by a NotificationCreated event. */
  async notify(tx: Tx, drafts: NotificationDraft[]): Promise<void> {
    if (drafts.length === 0) return
    const createdAt = this.d.clock.now()
    const rows = drafts.map((d) => ({ ...d, id: newId(), createdAt }))
    await notificationRepo.insert(tx, rows)
    await this.d.outbox.add(tx, rows.map((n) => ({
      // The aggregate is the notification itself, created once.
      type: 'NotificationCreated' as const, aggregateId: n.id, version: 1,
      payload: { notificationId: n.id, avatarId: n.avatarId, type: n.type, title: n.title },
    })))
  }

  async list(p: Principal, avatarId: string, asked: PageRequest & { unread?: boolean | undefined }): Promise<InboxPage> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    const db = this.d.database.current()
    const page = await readPage(asked, {
      names: "a notification of this avatar's inbox",
      positionOf: (cursor) => notificationRepo.positionOf(db, avatarId, cursor),
      fetch: (before, count) => notificationRepo.page(db, avatarId, asked.unread === true, count, before),
      keyOf: (n) => n.id,
    })
    return { ...page, unreadCount: await notificationRepo.unreadCount(db, avatarId) }
  }

  /**
   * A page of the avatar's notifications still kept, oldest first, for its owner's export (DESIGN
   * §9.4; the edge has checked whose data it is). A cursor is a notification's position.
   */
  exportPage(avatarId: string, cursor: string | undefined): Promise<Page<Notification>> {
    const db = this.d.database.current()
    return readPage({ limit: EXPORT_NOTIFICATIONS_PAGE, cursor }, {
      names: "a notification's position",
      positionOf: async (c) => Number(c),
      fetch: (after, count) => notificationRepo.exportPage(db, avatarId, count, after),
      keyOf: (n) => String(n.seq),
    })
  }

  async markRead(p: Principal, avatarId: string, notificationId: string): Promise<void> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    if (!(await notificationRepo.markRead(this.d.database.current(), avatarId, notificationId, this.d.clock.now()))) {
      throw new NotFound('Notification', notificationId)
    }
  }

  async markAllRead(p: Principal, avatarId: string): Promise<void> {
    await requireOwnedAvatar(this.d.avatars, p, avatarId, 'path')
    await notificationRepo.markAllRead(this.d.database.current(), avatarId, this.d.clock.now())
  }
}
