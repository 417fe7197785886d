/**
 * `POST /api/v1/avatars/{id}/import` (DESIGN §9.4): habits with their history from an export
 * document (JSON), or with `?format=loop` from a Loop Habit Tracker CSV export: its zip as sent by
 * the app (`application/zip`), or its Habits.csv and Checkmarks.csv as multipart/form-data parts or
 * JSON text fields (import-bodies.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { InvalidRequest } from '../../../../platform/errors.js'
import { links } from '../../../../platform/http/links.js'
import { LinksSchema } from '../../../../platform/http/links.js'
import { problemResponses, StringEnum } from '../../../../platform/http/schemas.js'
import { AVATAR_OWNER_ONLY } from '../../http/docs.js'
import { AvatarParams } from '../../http/schemas.js'
import { habitPath } from '../../http/views.js'
import type { ImportApp, ImportSource } from '../app/import-app.js'
import { IMPORT_BODY_MAX_BYTES, IMPORT_HABITS_MAX, IMPORT_ROWS_MAX } from '../domain/rules.js'
import { ImportDocument, LoopCsvPair } from './export-schemas.js'
import { acceptImportBodies, IMPORT_MEDIA_TYPES, isZipUpload, LoopCsvForm } from './import-bodies.js'

const ImportQuery = Type.Object({
  format: Type.Optional(StringEnum(['questline', 'loop'] as const, { description: 'questline (the default): an export document; loop: a Loop Habit Tracker CSV export' })),
  avatar: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Which avatar of the document to import the habits of: its index in `avatars` (0 first) or its id; default the first" })),
})

const ImportedView = Type.Object({
  avatarId: Type.String(),
  habitIds: Type.Array(Type.String(), { description: 'The habits made, with new ids, in the order of the file' }),
  existing: Type.Array(Type.Object({ habitId: Type.String(), title: Type.String() }), {
    description: "The file's habits the avatar has already (the same title and schedule), in the order of the file: none of them is made again, nor its history imported",
  }),
  _links: LinksSchema,
})

/**
 * A small export document as GET /api/v1/me/export writes it (the import reads `format`, `version`
 * and each avatar's habits with their history; the other fields are ignored).
 */
const EXAMPLE_DOCUMENT = {
  format: 'questline-export',
  version: 1,
  exportedAt: '2026-03-06T18:00:00.000Z',
  user: { name: 'Ada Lovelace', email: 'ada@example.com' },
  avatars: [{
    avatar: { id: 'ada-ranger' },
    habits: [{
      habit: {
        title: 'Read 20 pages', description: 'Any book, before bed', tags: ['reading'], recurrence: { type: 'DAILY' },
        timeZone: 'Europe/Berlin', restDays: [], reminderTime: '21:30', firstWindowStart: '2026-03-02',
      },
      completions: [
        { windowStart: '2026-03-02', attendedAt: '2026-03-02T21:40:00' },
        { windowStart: '2026-03-03', attendedAt: '2026-03-03T22:05:00' },
      ],
      missed: [{ windowStart: '2026-03-04', outcome: 'MISSED' }],
      frozen: [],
    }],
  }],
}

const isLoopPair = (body: unknown): body is { habits: string; checkmarks: string } =>
  typeof body === 'object' && body !== null && typeof (body as { habits?: unknown }).habits === 'string'

export const importRoutes: FastifyPluginAsyncTypebox<{ app: ImportApp }> = async (f, { app }) => {
  acceptImportBodies(f)

  f.post('/avatars/:id/import', {
    bodyLimit: IMPORT_BODY_MAX_BYTES,
    schema: {
      tags: ['habits'],
      operationId: 'importHabits',
      summary: 'Import habits with their history onto an avatar; it never rewards',
      description: 'The body is an export document (GET /api/v1/me/export; `?avatar=` picks which of its avatars, default the first), ' +
        'or with `?format=loop` a Loop Habit Tracker CSV export: its zip (`application/zip`), or its Habits.csv and Checkmarks.csv as the ' +
        'multipart/form-data parts `habits` and `checkmarks` or as the JSON `{habits, checkmarks}` holding their text. ' +
        'The habits are made with new ids and their whole history, in one transaction; no experience, money or points are paid for it. ' +
        'A habit of the file the avatar has already (the same title and schedule) is not made again: importing a file twice makes its habits once, ' +
        'and the second import lists them in `existing`. ' +
        `At most ${IMPORT_HABITS_MAX} habits and ${IMPORT_ROWS_MAX} history rows, ${IMPORT_BODY_MAX_BYTES} bytes (413 beyond). A file that cannot be read is a 400 naming where ` +
        '(a JSON pointer; for CSV the file, `line` and `field`). ' +
        `The refusals: 400 \`invalid-import\` for a file that cannot be read (nothing of it is imported), 400 \`malformed-request\` for a multipart body ` +
        'that cannot be read, 400 `validation` when the body is not of the `format` asked (or a multipart part is missing, unknown or sent twice), ' +
        '413 `import-too-large` beyond the bounds of habits, rows or parts, 413 `payload-too-large` beyond the bytes, ' +
        `415 \`unsupported-media-type\` for a body of another type than ${IMPORT_MEDIA_TYPES.join(', ')}. Each habit made is told by \`HabitCreated\`. ` +
        AVATAR_OWNER_ONLY,
      params: AvatarParams,
      querystring: ImportQuery,
      body: {
        content: {
          'application/json': { schema: Type.Union([ImportDocument, LoopCsvPair], { examples: [EXAMPLE_DOCUMENT] }) },
          'application/zip': { schema: Type.Any({ description: 'A Loop Habit Tracker CSV export as the app writes it (zip), with ?format=loop' }) },
          'multipart/form-data': { schema: LoopCsvForm },
        },
      } as never,
      response: { 200: ImportedView, ...problemResponses(400, 401, 403, 404, 413, 415) },
    },
  }, async (req) => {
    const avatarId = req.params.id
    const { habitIds, existing } = await app.importHabits(req.principal, avatarId, sourceOf(req.body, req.query))
    return {
      avatarId,
      habitIds,
      existing,
      _links: links({ habits: `/api/v1/habits?avatarId=${encodeURIComponent(avatarId)}`, ...Object.fromEntries(habitIds.slice(0, 1).map((id) => ['first', habitPath(id)])) }),
    }
  })
}

/** What the body holds, as the query says it should. */
function sourceOf(body: unknown, query: { format?: 'questline' | 'loop' | undefined; avatar?: string | undefined }): ImportSource {
  const format = query.format ?? 'questline'
  if (format === 'loop') {
    if (isZipUpload(body)) return { format, files: body.loopZip }
    if (isLoopPair(body)) return { format, files: { habits: { path: '/habits', text: body.habits }, checkmarks: { path: '/checkmarks', text: body.checkmarks } } }
    throw new InvalidRequest([{ path: 'body', message: 'must be a Loop export: a zip, or {habits, checkmarks} with the text of Habits.csv and Checkmarks.csv' }])
  }
  if (isZipUpload(body) || isLoopPair(body)) {
    throw new InvalidRequest([{ path: 'querystring/format', message: 'must be loop for a Loop Habit Tracker export' }])
  }
  // A JSON body was checked against the route's schema; a request may still come with none.
  if (typeof body !== 'object' || body === null) throw new InvalidRequest([{ path: 'body', message: 'must be an export document (GET /api/v1/me/export)' }])
  return { format, document: body as ImportDocument, avatar: query.avatar }
}
