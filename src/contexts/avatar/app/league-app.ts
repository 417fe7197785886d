import type { AvatarDraft } from '../../../contracts/events/avatar.js'
import type { Clock } from '../../../platform/clock.js'
import type { Database } from '../../../platform/db/database.js'
import type { EventDraft, Outbox } from '../../../platform/events/outbox.js'
import { readPage, type Page, type PageRequest } from '../../../platform/paging.js'
import {
  closeDivision, demotionRank, FIRST_TIER, promotionRank, ranked, seasonAt, type DivisionResult, type Season, type Tier,
} from '../domain/league.js'
import { leagueRepo, type DivisionRef, type HistoryItem, type LeagueRecord } from '../store/leagues.js'

export interface LeagueView {
  season: Season
  tier: Tier
  /** Scored this week, but waits for the week before to close before it enters a division. */
  waiting: boolean
  division: { id: string; members: { avatarId: string; name: string; score: number; rank: number }[] } | null
  promotionRank: number | null
  demotionRank: number | null
}

/** Everything the leagues keep of an avatar, oldest first, with the tier its next season starts in. */
export type LeagueExportRecord = Omit<LeagueRecord, 'tier'> & { tier: Tier }

export interface LeagueDeps {
  database: Database
  clock: Clock
  outbox: Outbox<AvatarDraft>
  /** Answers the avatar's existence (a NotFound for an unknown one). */
  avatarExists: (id: string) => Promise<unknown>
}

/** Divisions read per round of the season-end job. */
const CLOSING_ROUND = 50

const divisionId = (d: DivisionRef) => `${d.season}-${d.tier}-${d.division}`

/**
 * Weekly leagues (DESIGN §9.5): an avatar's division this week, its past seasons, and the job that
 * closes ended seasons. Scores are written with the avatar's changes (avatar-command.ts).
 */
export class LeagueApp {
  constructor(private readonly d: LeagueDeps) {}

  /** The avatar's league this week; any signed-in player may read any avatar's. */
  async league(avatarId: string): Promise<LeagueView> {
    await this.d.avatarExists(avatarId)
    const q = this.d.database.db
    const season = seasonAt(this.d.clock.now())
    const { placed: entry, waiting } = await leagueRepo.entryOf(q, season.id, avatarId)
    const tier = entry?.tier ?? (await leagueRepo.tierOf(q, avatarId)) ?? FIRST_TIER
    if (!entry) return { season, tier, waiting, division: null, promotionRank: promotionRank(tier), demotionRank: null }
    const members = ranked(await leagueRepo.members(q, entry))
    return {
      season, tier, waiting,
      division: { id: divisionId(entry), members: members.map(({ avatarId: id, name, score, rank }) => ({ avatarId: id, name, score, rank })) },
      promotionRank: promotionRank(tier), demotionRank: demotionRank(tier, members.length),
    }
  }

  /** The avatar's closed seasons, newest first; the cursor is the last season of the page before. */
  async history(avatarId: string, asked: PageRequest): Promise<Page<HistoryItem>> {
    await this.d.avatarExists(avatarId)
    const q = this.d.database.db
    return readPage(asked, {
      names: 'a season of this avatar\'s league history',
      positionOf: async (cursor) => ((await leagueRepo.hasResult(q, avatarId, cursor)) ? cursor : undefined),
      fetch: (after, count) => leagueRepo.history(q, avatarId, after, count),
      keyOf: (item) => item.season,
    })
  }

  /** Everything the leagues keep of the avatar, for its owner's export (DESIGN §9.4). */
  async exportOf(avatarId: string): Promise<LeagueExportRecord> {
    const record = await leagueRepo.recordOf(this.d.database.current(), avatarId)
    return { ...record, tier: record.tier ?? FIRST_TIER }
  }

  /**
   * Closes every division of the seasons that ended: each once, however many replicas run this at
   * once (a division's closing row is claimed in the transaction that archives its results and
   * writes its LeagueResult events; the avatar context pays the rewards on those events, once each).
   */
  async closeEndedSeasons(): Promise<number> {
    let closed = 0
    for (;;) {
      closed += await this.closeDivisions()
      // Entries that waited for those weeks to close are placed, and their seasons may have ended too.
      if ((await this.placeWaitingEntries()) === 0) return closed
    }
  }

  private async closeDivisions(): Promise<number> {
    const current = seasonAt(this.d.clock.now()).id
    let closed = 0
    for (;;) {
      const open = await leagueRepo.unclosedBefore(this.d.database.db, current, CLOSING_ROUND)
      let claimed = 0
      for (const division of open) if (await this.close(division)) claimed++
      closed += claimed
      // A round that claimed nothing saw only divisions other replicas were closing.
      if (open.length < CLOSING_ROUND || claimed === 0) return closed
    }
  }

  private async placeWaitingEntries(): Promise<number> {
    let placed = 0
    for (;;) {
      const round = await this.d.database.transaction((tx) => leagueRepo.placeWaiting(tx, CLOSING_ROUND))
      placed += round
      if (round < CLOSING_ROUND) return placed
    }
  }

  private close(d: DivisionRef): Promise<boolean> {
    return this.d.database.transaction(async (tx) => {
      if (!(await leagueRepo.claimClosing(tx, d, this.d.clock.now()))) return false
      const results = closeDivision(d.tier, await leagueRepo.members(tx, d))
      await leagueRepo.saveResults(tx, d, results)
      await this.d.outbox.add(tx, results.map((r) => resultEvent(d, r)))
      return true
    })
  }
}

const resultEvent = (d: DivisionRef, r: DivisionResult): EventDraft<AvatarDraft> => ({
  type: 'LeagueResult', aggregateId: r.avatarId, version: 0,
  payload: { avatarId: r.avatarId, season: d.season, tier: d.tier, nextTier: r.nextTier, rank: r.rank, score: r.score, result: r.outcome, reward: r.reward },
})
