/**
 * Attends in bulk (DESIGN §9.6): check-ins queued offline go up together, each with a key the
 * client chose. Each item is a keyed attend in its habit's batch of the platform writer, as a
 * single attend is; an item's refusal answers that item alone, and a key answers its first result
 * again (applied or refused) and applies nothing.
 */
import type { TrackingDraft } from '../../../contracts/events/tracking.js'
import type { Principal } from '../../../platform/auth/principal.js'
import { AppError, IdempotencyKeyReused, NotFound } from '../../../platform/errors.js'
import { problemTypeUri } from '../../../platform/http/problem-types.js'
import { parseLocalDateTime } from '../../../platform/time/index.js'
import type { AggregateWriter } from '../../../platform/writer/writer.js'
import { requireOwnedAvatar } from '../../avatar/client.js'
import { InvalidDate } from '../domain/errors.js'
import { attendanceStore, type StoredAttendAnswer } from '../store/attendances.js'
import type { AttendableHabit } from '../store/habit-aggregate.js'
import { attendCommand, authorizeHabit } from './attend-batch.js'
import type { TrackingDeps } from './deps.js'

export interface BulkAttendItem {
  key: string
  habitId: string
  date: string
}

/** An item's refusal as the single attend answers it (RFC 9457). */
export interface ItemProblem {
  type: string
  title: string
  status: number
  detail: string
  errors?: { path: string; message: string }[]
}

/** What came of an item: 204 applied (as the single attend answers), else the refusal's status and problem. */
export interface BulkAttendResult {
  key: string
  status: number
  problem?: ItemProblem
}

/** What a key keeps: null when applied (the writer's answer of a keyed call), the refusal otherwise. */
type KeptResult = { status: number; problem: ItemProblem } | null | undefined

const APPLIED = 204

/** A client's key within its avatar's space: two players' (or avatars') keys never meet. */
const scopedKey = (avatarId: string, key: string) => `attend/${avatarId}/${key}`
/** The call a key names: the same key with another date (or habit) is another call, refused as a reused key. */
const operationOf = (date: string) => `attend ${date}`

const problemOf = (e: AppError): ItemProblem =>
  ({ type: problemTypeUri(e.slug), title: e.title, status: e.status, detail: e.message, ...(e.errors ? { errors: e.errors } : {}) })

const resultOf = (key: string, kept: KeptResult): BulkAttendResult => (kept ? { key, status: kept.status, problem: kept.problem } : { key, status: APPLIED })

type AttendWriter = AggregateWriter<AttendableHabit, TrackingDraft>

/**
 * Applies the items in order. The avatar's owner is checked once for the request; the keys kept
 * before are read in one statement; the others are submitted to the writer in item order in one
 * turn of the event loop, so the items of one habit are decided in that order in its batch (a
 * second attend of a date sees the first's completion) and the habits' batches commit together.
 */
export async function attendInBulk(d: TrackingDeps, writer: AttendWriter, p: Principal, avatarId: string, items: BulkAttendItem[]): Promise<BulkAttendResult[]> {
  await requireOwnedAvatar(d.avatars, p, avatarId, 'path')
  const keys = items.map((item) => scopedKey(avatarId, item.key))
  const kept = new Map((await attendanceStore.answersOf(d.database.db, keys)).map((a) => [a.key, a]))
  return Promise.all(items.map((item, i) => {
    const earlier = kept.get(keys[i]!)
    if (earlier) return Promise.resolve(replayed(item, earlier))
    return attendItem(d, writer, p, avatarId, item, keys[i]!)
  }))
}

function replayed(item: BulkAttendItem, earlier: StoredAttendAnswer): BulkAttendResult {
  if (earlier.of !== item.habitId || earlier.operation !== operationOf(item.date)) return resultOf(item.key, refusal(new IdempotencyKeyReused(item.key)))
  return resultOf(item.key, earlier.result as KeptResult)
}

const refusal = (e: AppError) => ({ status: e.status, problem: problemOf(e) })

/** One item as a keyed attend; its writer call starts before this returns (the order of submission is the order of decision). */
async function attendItem(d: TrackingDeps, writer: AttendWriter, p: Principal, avatarId: string, item: BulkAttendItem, key: string): Promise<BulkAttendResult> {
  const call = { key, operation: operationOf(item.date) }
  try {
    const attendedAt = parseLocalDateTime(item.date)
    if (!attendedAt) throw new InvalidDate(item.date)
    const attend = attendCommand(p, attendedAt, d.clock)
    const kept = await writer.submit<KeptResult>(item.habitId, {
      call,
      decide: (h, reads) => {
        authorizeHabit(p, h)
        if (h.avatarId !== avatarId) throw new NotFound(`Habit '${h.id}' of avatar`, avatarId)
        return { ...attend.decide(h, reads), result: undefined }
      },
    })
    return resultOf(item.key, kept)
  } catch (e) {
    // The key answered another call meanwhile (named here as the client knows it): that call's answer stays the key's.
    if (e instanceof IdempotencyKeyReused) return resultOf(item.key, refusal(new IdempotencyKeyReused(item.key)))
    // A client's item refused: kept as its key's first result. Anything else (the database down) answers the request.
    if (!(e instanceof AppError) || e.status >= 500) throw e
    const first = await attendanceStore.keepRefusal(d.database.db, { key, of: item.habitId, operation: call.operation, result: refusal(e) }, d.clock.now())
    return replayed(item, first)
  }
}
