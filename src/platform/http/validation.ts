import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import { BadRequest, type FieldError } from '../errors.js'
import { compileOnFirstUse, type LazyCompiles } from './lazy-compile.js'

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes, useDefaults: true, removeAdditional: false, strict: false })
  addFormats(ajv)
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

/** A validator for a body the route reads itself (the avatar search's GET body), compiled on its first use. */
export function compileBodyValidator(schema: object): ValidateFunction {
  return compileOnFirstUse(() => strictAjv().compile(schema), copyErrors)
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
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`
    }
    const path = `${part}${pointer}`
    const key = `${path}|${message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ path, message })
  }
  return out
}

/** Where in a request the first NUL character sits (`body/name`), if any. */
function nulPath(value: unknown, at: string, depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined
  if (value === null || typeof value !== 'object' || depth > 32) return undefined
  for (const [k, v] of Object.entries(value)) {
    const found = nulPath(v, `${at}/${k}`, depth + 1)
    if (found) return found
  }
  return undefined
}

/**
 * PostgreSQL text cannot hold NUL, so a NUL anywhere in a request's text is refused up front
 * with a 400 naming the field, for every route at once.
 */
export async function rejectNulCharacters(req: FastifyRequest): Promise<void> {
  const path = nulPath(req.body, 'body') ?? nulPath(req.query, 'query') ?? nulPath(req.params, 'path')
  if (path) throw new BadRequest(`${path} contains a NUL character, which text may not hold.`, 'validation', [{ path, message: 'must not contain NUL characters' }])
}
