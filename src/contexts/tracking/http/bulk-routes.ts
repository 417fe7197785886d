import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { InvalidRequest } from '../../../platform/errors.js'
import { PLATFORM_PROBLEMS, problemTypeSlug } from '../../../platform/http/problem-types.js'
import { problemResponses } from '../../../platform/http/schemas.js'
import { LOCAL_DATE_TIME_PATTERN } from '../../../platform/time/index.js'
import type { BulkAttendItem, BulkAttendResult } from '../app/bulk-attends.js'
import type { HabitCommands } from '../app/habit-commands.js'
import { ATTEND_KEY_MAX, ATTEND_KEY_MIN, ATTEND_KEYS_KEPT_DAYS, BULK_ATTENDS_MAX } from '../domain/rules.js'
import { AVATAR_OWNER_ONLY } from './docs.js'
import { AvatarParams } from './schemas.js'
import { TRACKING_PROBLEMS } from './problem-types.js'

const AttendKey = Type.String({
  minLength: ATTEND_KEY_MIN, maxLength: ATTEND_KEY_MAX, pattern: '^[A-Za-z0-9_-]+$',
  description: `Chosen by the client, unique among its check-ins: ${ATTEND_KEY_MIN}–${ATTEND_KEY_MAX} characters of A–Z, a–z, 0–9, _ and -`,
})

export const BulkAttendsBody = Type.Object({
  attends: Type.Array(Type.Object({
    key: AttendKey,
    habitId: Type.String({ format: 'uuid' }),
    date: Type.String({ pattern: LOCAL_DATE_TIME_PATTERN, description: 'Local date-time YYYY-MM-DDTHH:mm:ss[.SSS], no offset' }),
  }), { minItems: 1, maxItems: BULK_ATTENDS_MAX, description: `1–${BULK_ATTENDS_MAX} check-ins, applied in this order; keys unique within the request` }),
}, {
  examples: [{ attends: [
    { key: 'ck-2026-03-02-run', habitId: '0b6f8e52-6d1c-4f67-9a43-2f1f9c1e7a10', date: '2026-03-02T07:30:00' },
    { key: 'ck-2026-03-02-read', habitId: '5d2c7a9e-3b8f-4e21-8c65-9d0e4f3a2b71', date: '2026-03-02T21:15:00' },
  ] }],
})

export const BulkAttendsView = Type.Object({
  results: Type.Array(Type.Object({
    key: Type.String(),
    status: Type.Integer({ description: 'What `POST /habits/{id}/attend` answers for the item: 204 applied, else the refusal\'s 4xx' }),
    problem: Type.Optional(Type.Ref('Problem', { description: 'The refusal, as the single attend answers it; absent when applied' })),
  }), { description: 'One result per item, in the order of the items' }),
}, {
  examples: [{ results: [
    { key: 'ck-2026-03-02-run', status: 204 },
    { key: 'ck-2026-03-02-read', status: 400, problem: {
      type: '/problems/window-already-completed', title: 'Window already completed', status: 400,
      detail: 'The window 2026-03-02–2026-03-03 is completed already.',
    } },
  ] }],
})

/** An item's problem titled as its type is wherever it is answered (as the single attend's is). */
function titled(result: BulkAttendResult): BulkAttendResult {
  if (!result.problem) return result
  const slug = problemTypeSlug(result.problem.type) ?? ''
  const type = TRACKING_PROBLEMS[slug] ?? PLATFORM_PROBLEMS[slug]
  return type ? { ...result, problem: { ...result.problem, title: type.title } } : result
}

/** The first item (by position) whose key an earlier item of the request has: a key names one check-in. */
function repeatedKeyAt(items: BulkAttendItem[]): number | undefined {
  const seen = new Set<string>()
  for (const [i, item] of items.entries()) {
    if (seen.has(item.key)) return i
    seen.add(item.key)
  }
  return undefined
}

/** Check-ins in bulk (DESIGN §9.6): tracking's, though the path names the avatar (the owner-key rule routes it by the avatar). */
export const bulkAttendRoutes: FastifyPluginAsyncTypebox<{ commands: HabitCommands }> = async (f, { commands }) => {
  f.post('/avatars/:id/attends', {
    schema: {
      tags: ['habits'],
      operationId: 'attendHabitsInBulk',
      summary: 'Complete many windows at once, each check-in with its own key',
      description: `Each item is applied in order as \`POST /habits/{id}/attend\` would apply it, and answers what that would: status ` +
        '204 when applied, else the refusal\'s status and its problem (a habit unknown, archived or of another avatar, a date outside its ' +
        'windows, a window completed by an earlier item…); one refused item never holds back the others. An item whose key was answered ' +
        `before for this avatar (within ${ATTEND_KEYS_KEPT_DAYS} days) answers that first result again and applies nothing, so a replayed ` +
        'batch changes nothing; an item whose key named another habit or date answers 409 `/problems/idempotency-key-reused`. The request itself ' +
        `is refused with 400 \`validation\` naming the field for 0 or more than ${BULK_ATTENDS_MAX} items, a malformed item, or a key twice ` +
        `in it. Rewards follow by event as for single attends. ${AVATAR_OWNER_ONLY}`,
      params: AvatarParams,
      body: BulkAttendsBody,
      response: { 200: BulkAttendsView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const items = req.body.attends
    const repeated = repeatedKeyAt(items)
    if (repeated !== undefined) throw new InvalidRequest([{ path: `/attends/${repeated}/key`, message: 'must be unique within the request' }])
    return { results: (await commands.attendMany(req.principal, req.params.id, items)).map(titled) }
  })
}
