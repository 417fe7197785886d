import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifyRequest, FastifySchemaCompiler, RouteOptions } from 'fastify'
import { InvalidRequest, type FieldError } from '../errors.js'
import { compileOnFirstUse, type LazyCompiles } from './lazy-compile.js'

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/**
 * A UUID as the database stores and compares it: 8-4-4-4-12 hex digits. ajv-formats also takes
 * `urn:uuid:…`, which PostgreSQL refuses, so every `format: 'uuid'` means this instead.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function makeAjv(coerceTypes: boolean): Ajv {
  // `discriminator`: a `oneOf` of variants picked by a field (a habit's recurrence type) checks only the variant picked.
  const ajv = new Ajv({ allErrors: true, coerceTypes, useDefaults: true, removeAdditional: false, strict: false, discriminator: true })
  addFormats(ajv)
  ajv.addFormat('uuid', UUID)
  // OpenAPI 3.0's mark of a file in a multipart body: its text, whatever it holds.
  ajv.addFormat('binary', true)
  return ajv
}

/**
 * Bodies are validated as sent (`"5"` is not an integer); path and query text is coerced as usual.
 * Each is made when a first validator is compiled: not at every start.
 */
let strict: Ajv | undefined
let coercing: Ajv | undefined
const strictAjv = () => (strict ??= makeAjv(false))
const coercingAjv = () => (coercing ??= makeAjv(true))

/** ajv reports a call's errors on the function; a lazily compiled one passes them on. */
const copyErrors = (from: ValidateFunction, to: ValidateFunction) => {
  to.errors = from.errors
}

/** The route validators of one server, each compiled on its first use (see lazy-compile.ts). */
export function validatorCompiler(pending?: LazyCompiles): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strictAjv : coercingAjv
    return compileOnFirstUse(() => ajv().compile(schema as object) as ValidateFunction, copyErrors, pending)
  }
}

/**
 * A validator for a body the route reads itself (the avatar search's GET body), compiled on its
 * first use; its `schema` is there from the start (the gateway reads which criteria it declares).
 */
export function compileBodyValidator(schema: object): ValidateFunction {
  return Object.assign(compileOnFirstUse(() => strictAjv().compile(schema), copyErrors), { schema })
}

interface ObjectSchema {
  properties?: Record<string, object>
  required?: string[]
}

/**
 * A field with a default may be left out, whatever its schema's `required` says: the validator fills
 * it in (ajv's `useDefaults`), so the handler reads it all the same. Each route's query, header and
 * body fields are made to say so, to the validator and in the document, so no client is made to
 * send what it may leave out (`?limit=`).
 */
export function defaultsOptional(route: RouteOptions): void {
  const schema = route.schema as Record<string, ObjectSchema | undefined> | undefined
  for (const part of ['querystring', 'headers', 'body']) {
    const s = schema?.[part]
    if (!s?.required || !s.properties) continue
    const properties = s.properties
    const required = s.required.filter((k) => !(properties[k] && 'default' in properties[k]))
    if (required.length === s.required.length) continue
    const { required: _all, ...rest } = s
    schema![part] = required.length > 0 ? { ...rest, required } : rest
  }
}

export function toFieldErrors(part: string, errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>()
  const out: FieldError[] = []
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue
    let pointer = e.instancePath
    let message = e.message ?? 'is invalid'
    if (e.keyword === 'required') {
      pointer = `${pointer}/${String(e.params.missingProperty)}`
      message = 'is required'
    } else if (e.keyword === 'additionalProperties') {
      // Named as the field it is, where the schema forbids fields it does not know.
      pointer = `${pointer}/${String(e.params.additionalProperty)}`
      message = 'is not a field the operation takes'
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`
    } else if (e.keyword === 'discriminator') {
      // The field that picks a variant is missing or names none; said once, when the object's own
      // schema has not said it already (it declares that field, with its values).
      pointer = `${pointer}/${String(e.params.tag)}`
      if (out.some((o) => o.path === `${part}${pointer}`)) continue
      message = e.params.tagValue === undefined ? 'is required' : 'must name one of the variants'
    }
    const path = `${part}${pointer}`
    const key = `${path}|${message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ path, message })
  }
  return out
}

/**
 * Text PostgreSQL cannot store: NUL, and a UTF-16 surrogate without its pair (a JSON `\ud800`
 * escape), which has no UTF-8 form and which jsonb refuses.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Where in a request the first unstorable string (or key) sits (`body/name`), if any. */
function unstorablePath(value: unknown, at: string, depth = 0): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? at : undefined
  if (value === null || typeof value !== 'object' || depth > 32) return undefined
  for (const [k, v] of Object.entries(value)) {
    if (UNSTORABLE.test(k)) return at
    const found = unstorablePath(v, `${at}/${k}`, depth + 1)
    if (found) return found
  }
  return undefined
}

/** Refuses a request part holding text that cannot be stored, naming the field (400). */
export function refuseUnstorableText(value: unknown, part: string): void {
  const path = unstorablePath(value, part)
  if (path) {
    throw new InvalidRequest([{ path, message: 'must not contain NUL characters or unpaired surrogates' }],
      `${path} contains a NUL character or an unpaired surrogate, which text may not hold.`)
  }
}

/** Every route at once: unstorable text anywhere in a request is a 400 up front, never a database error. */
export async function rejectUnstorableText(req: FastifyRequest): Promise<void> {
  refuseUnstorableText(req.body, 'body')
  refuseUnstorableText(req.query, 'querystring')
  refuseUnstorableText(req.params, 'params')
}

/**
 * A query string whose percent-escapes are not UTF-8 (`%ED%A0%80`, `%E0%A4%A`) is refused before
 * any route or forwarding sees it: decoded, it would be text no shape could agree on.
 */
export async function rejectMalformedQuery(req: FastifyRequest): Promise<void> {
  const at = req.url.indexOf('?')
  if (at < 0 || !req.url.includes('%', at)) return
  try {
    decodeURIComponent(req.url.slice(at + 1))
  } catch {
    throw new InvalidRequest([{ path: 'querystring', message: 'must be percent-encoded UTF-8' }],
      'The query string holds a percent-escape that is not UTF-8.')
  }
}
