import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { links, LinksSchema } from '../../../platform/http/links.js'
import { Nullable, problemResponses, StringEnum } from '../../../platform/http/schemas.js'
import type { HabitQueries } from '../app/habit-queries.js'
import { REPORT_EARLIEST_DATE, REPORT_PERIODS, STRENGTH_MAX } from '../domain/rules.js'
import { AvatarParams, HabitIdParams } from './schemas.js'
import { habitPath } from './views.js'
import { AVATAR_OWNER_ONLY, HABIT_PRIVATE } from './docs.js'

const tags = ['habits']

const Rate = Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Due windows done / due windows; null when none was due' }))
const HabitStatsView = Type.Object({
  completionRate: Type.Object({
    days7: Rate, days30: Rate, days365: Rate,
  }, { description: "Over the windows that ended in the last 7, 30, 365 of the habit's days (today included), and the one under way once done" }),
  currentStreak: Type.Integer({ description: 'As the habit shows it: 0 once broken' }),
  bestStreak: Type.Integer(),
  strength: Type.Integer({ minimum: 0, maximum: STRENGTH_MAX, description: 'Exponential moving average of the due windows of the last 365 days (done 1, missed 0), in percent' }),
  totalCompletions: Type.Integer({ description: 'Every completion recorded (a TIMES_PER_WEEK week may hold several)' }),
  _links: LinksSchema,
})

const ReportQuery = Type.Object({
  period: StringEnum(REPORT_PERIODS, { description: 'week: from Monday; month: from the 1st; in the avatar\'s days' }),
  date: Type.Optional(Type.String({ format: 'date', description: `A day of the period (default today; not after today, not before ${REPORT_EARLIEST_DATE})` })),
})
const Count = Type.Integer({ minimum: 0 })
const ReportView = Type.Object({
  period: StringEnum(REPORT_PERIODS),
  from: Type.String({ description: 'Its first day' }),
  to: Type.String({ description: 'The day after its last' }),
  habits: Type.Array(Type.Object({
    habitId: Type.String(),
    title: Type.String(),
    due: Type.Integer({ minimum: 0, description: 'done + missed + frozen: the due windows ending in the period (one not ended yet only once done)' }),
    done: Count,
    missed: Count,
    frozen: Count,
  })),
  experience: Type.Integer({ minimum: 0, description: 'Experience the avatar earned in the period, from any source' }),
  money: Type.Integer({ minimum: 0, description: 'Money the avatar earned in the period, from any source (spending does not count against it)' }),
  _links: LinksSchema,
})

/** A habit's stats and an avatar's weekly or monthly report (DESIGN §9.4): what charts are drawn from. */
export const statsRoutes: FastifyPluginAsyncTypebox<{ queries: HabitQueries }> = async (f, { queries }) => {
  f.get('/habits/:id/stats', {
    schema: {
      tags,
      operationId: 'getHabitStats',
      summary: "A habit's completion rates, streaks, strength and completions",
      description: 'Rates over the windows that ended in its last 7, 30 and 365 days; strength is a moving average of the due windows ' +
        `of the last year. ${HABIT_PRIVATE}`,
      params: HabitIdParams,
      response: { 200: HabitStatsView, ...problemResponses(401, 403, 404) },
    },
  }, async (req) => ({
    ...(await queries.stats(req.principal, req.params.id)),
    _links: links({ self: `${habitPath(req.params.id)}/stats`, habit: habitPath(req.params.id), windows: `${habitPath(req.params.id)}/windows` }),
  }))

  f.get('/avatars/:id/report', {
    schema: {
      tags,
      operationId: 'getAvatarReport',
      summary: "An avatar's week or month report",
      description: "An avatar's week or month: each habit's due windows by outcome (an archived habit only for a period something " +
        'of it was due in), and the experience and money earned. ' +
        `Refused with 400 \`invalid-date\` for a \`date\` after today or before ${REPORT_EARLIEST_DATE}. ${AVATAR_OWNER_ONLY}`,
      params: AvatarParams, querystring: ReportQuery, response: { 200: ReportView, ...problemResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const report = await queries.report(req.principal, req.params.id, req.query)
    const avatar = `/api/v1/avatars/${encodeURIComponent(req.params.id)}`
    return { ...report, _links: links({ self: `${avatar}/report?period=${report.period}&date=${report.from}`, avatar }) }
  })
}
