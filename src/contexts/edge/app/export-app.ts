/**
 * A player's export (DESIGN §9.4): the edge composes the document from what each context serves
 * through its port, never reading their tables. It is written progressively, avatar by avatar,
 * habit by habit, history page by page, so a large account streams in bounded memory and no
 * response limit applies. Only the token's own account is exported.
 */
import type { Principal } from '../../../platform/auth/principal.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database } from '../../../platform/db/database.js'
import { NotFound } from '../../../platform/errors.js'
import { pagesOf, type Page } from '../../../platform/paging.js'
import type { AvatarClient, AvatarExport } from '../../avatar/client.js'
import type { GuildClient } from '../../guild/client.js'
import type { LiveClient } from '../../live/client.js'
import type { MarketplaceClient } from '../../marketplace/client.js'
import type { QuestClient } from '../../quest/client.js'
import type { HistoryKind, TrackingClient } from '../../tracking/client.js'
import { EXPORT_FORMAT, EXPORT_VERSION } from '../domain/rules.js'
import { userRepo } from '../store/repositories.js'

export interface ExportPorts {
  avatar: AvatarClient
  tracking: TrackingClient
  quest: QuestClient
  guild: GuildClient
  marketplace: MarketplaceClient
  live: LiveClient
}

/** What an export starts from, read before the first byte is sent: a failure here is still an error answer. */
interface OpenedExport {
  user: { name: string; email: string }
  avatars: AvatarExport[]
  exportedAt: Date
}

const json = JSON.stringify

/** Items of consecutive pages as the inside of one JSON array: each page a chunk, joined by commas. */
async function* arrayOfPages<T>(read: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<string> {
  let first = true
  for await (const items of pagesOf(read)) {
    if (items.length > 0) {
      yield (first ? '' : ',') + items.map((i) => json(i)).join(',')
      first = false
    }
  }
}

export class ExportApp {
  constructor(private readonly d: { database: Database; clock: Clock; ports: ExportPorts }) {}

  /** The account and its avatars: the part of the export that decides whether there is one to send. */
  async open(p: Principal): Promise<OpenedExport> {
    const user = await userRepo.findById(this.d.database.current(), p.userId)
    if (!user) throw new NotFound('Account', p.userId)
    const avatars = await this.d.ports.avatar.exportOwnedBy(p.userId)
    return { user: { name: user.name, email: user.email }, avatars, exportedAt: this.d.clock.now() }
  }

  /** The document, as chunks of JSON text in order. */
  async* write(opened: OpenedExport): AsyncGenerator<string> {
    yield `{"format":${json(EXPORT_FORMAT)},"version":${EXPORT_VERSION},"exportedAt":${json(opened.exportedAt.toISOString())},"user":${json(opened.user)},"avatars":[`
    for (const [i, avatar] of opened.avatars.entries()) {
      if (i > 0) yield ','
      yield* this.avatarRecord(avatar)
    }
    yield ']}'
  }

  private async* avatarRecord(avatar: AvatarExport): AsyncGenerator<string> {
    const { tracking, quest, guild, marketplace, live } = this.d.ports
    const [settings, quests, membership, chatMessages, trade, league] = await Promise.all([
      tracking.exportSettings(avatar.id), quest.exportOf(avatar.id), guild.exportMembership(avatar.id), guild.exportChatMessages(avatar.id),
      marketplace.exportOf(avatar.id), this.d.ports.avatar.exportLeague(avatar.id),
    ])
    yield `{"avatar":${json(avatar)},"settings":${json(settings)},"habits":[`
    let first = true
    for await (const habits of pagesOf((cursor) => tracking.exportHabits(avatar.id, cursor))) {
      for (const habit of habits) {
        yield `${first ? '' : ','}{"habit":${json(habit)}`
        first = false
        for (const kind of ['completions', 'missed', 'frozen'] as const satisfies HistoryKind[]) {
          yield `,${json(kind)}:[`
          yield* arrayOfPages((after) => tracking.exportHistory(habit.id, kind, after))
          yield ']'
        }
        yield '}'
      }
    }
    yield `],"quests":${json(quests)},"guild":${json(membership)},"chatMessages":${json(chatMessages)},"purchases":${json(trade.purchases)},"sales":${json(trade.sales)},"league":${json(league)},"notifications":[`
    yield* arrayOfPages((cursor) => live.exportNotifications(avatar.id, cursor))
    yield ']}'
  }
}
