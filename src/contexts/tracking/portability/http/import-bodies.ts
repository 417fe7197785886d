/**
 * The bodies an import takes, besides JSON: a Loop Habit Tracker export's zip (`application/zip`,
 * opened here into its CSV files) and its Habits.csv and Checkmarks.csv as multipart/form-data
 * (read into `{habits, checkmarks}`, the JSON pair's shape, which the route's schema checks). Any
 * other media type is refused with 415 naming those it takes.
 */
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { AppError } from '../../../../platform/errors.js'
import type { LoopFiles } from '../domain/loop-plans.js'
import { IMPORT_BODY_MAX_BYTES, IMPORT_FORM_HEADER_BYTES_MAX, IMPORT_FORM_PARTS_MAX } from '../domain/rules.js'
import { loopFilesOfZip } from './loop-zip.js'
import { readForm } from './multipart-form.js'

const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed']
const FORM_TYPE = 'multipart/form-data'
/** What the operation takes, as a 415 names it. */
export const IMPORT_MEDIA_TYPES = ['application/json', 'application/zip', FORM_TYPE]

/** A zip as parsed: its CSV files. */
export interface ZipUpload { loopZip: LoopFiles }

export const isZipUpload = (body: unknown): body is ZipUpload => typeof body === 'object' && body !== null && 'loopZip' in body

/** A Loop export's two files as multipart/form-data: file fields (or text fields) named habits and checkmarks. */
export const LoopCsvForm = Type.Object({
  habits: Type.String({ format: 'binary', minLength: 1, description: 'Habits.csv as Loop exports it' }),
  checkmarks: Type.String({ format: 'binary', minLength: 1, description: 'Checkmarks.csv as Loop exports it (Date, then one column per habit)' }),
}, {
  additionalProperties: false,
  description: `A Loop Habit Tracker CSV export's Habits.csv and Checkmarks.csv as two parts (\`?format=loop\`); at most ${IMPORT_FORM_PARTS_MAX} parts, ` +
    `${IMPORT_FORM_HEADER_BYTES_MAX} bytes of headers each`,
})

class UnsupportedImportType extends AppError {
  constructor(sent: string) {
    super(415, 'unsupported-media-type', 'Unsupported media type', `An import takes ${IMPORT_MEDIA_TYPES.join(', ')}; not ${sent || 'a body without a Content-Type'}.`,
      [{ path: 'headers/content-type', message: `must be ${IMPORT_MEDIA_TYPES.join(', ')}` }])
  }
}

/** Declares the parsers on the import's own plugin: these bodies are read only there. */
export function acceptImportBodies(f: FastifyInstance): void {
  f.addContentTypeParser(ZIP_TYPES, { parseAs: 'buffer', bodyLimit: IMPORT_BODY_MAX_BYTES }, (_req, body, done) => {
    try {
      done(null, { loopZip: loopFilesOfZip(body as Buffer) } satisfies ZipUpload)
    } catch (e) {
      done(e as Error, undefined)
    }
  })
  f.addContentTypeParser(FORM_TYPE, { parseAs: 'buffer', bodyLimit: IMPORT_BODY_MAX_BYTES }, (req, body, done) => {
    try {
      done(null, readForm(body as Buffer, req.headers['content-type'] ?? '', { partsMax: IMPORT_FORM_PARTS_MAX, headerBytesMax: IMPORT_FORM_HEADER_BYTES_MAX }))
    } catch (e) {
      done(e as Error, undefined)
    }
  })
  // Before the body is read: nothing of a body of another type is.
  f.addContentTypeParser('*', (req, _payload, done) => done(new UnsupportedImportType(req.headers['content-type'] ?? ''), undefined))
}
