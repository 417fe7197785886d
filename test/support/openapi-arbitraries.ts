/**
 * fast-check arbitraries derived from the JSON schemas of the OpenAPI document: values a schema
 * accepts (biased to their bounds and to awkward but legal text), values at and beyond each bound,
 * wrong types, hostile text, and the JSON a value cannot say (numbers as written, a key twice,
 * deep nesting). The fuzz builds its requests from them (test/support/fuzz-requests.ts), with the
 * whole bodies and URL text of openapi-wire.ts.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import fc from 'fast-check'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/** The part of JSON Schema (OpenAPI 3.0 flavour) the document uses. */
export interface Schema {
  type?: string
  enum?: unknown[]
  format?: string
  pattern?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  items?: Schema
  minItems?: number
  maxItems?: number
  properties?: Record<string, Schema>
  required?: string[]
  nullable?: boolean
  default?: unknown
  /** Variants of an object, each adding its fields to the object's own (a recurrence's schedule per type). */
  oneOf?: Schema[]
}

/**
 * Validators of what the document says: bodies are not coerced, formats are checked, a `uuid` is
 * RFC 4122's 8-4-4-4-12 hex (ajv-formats would also take `urn:uuid:…`).
 */
const ajv = addFormats(new Ajv({ allErrors: false, coerceTypes: false, strict: false, validateFormats: true }))
  .addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
const compiled = new WeakMap<Schema, ValidateFunction>()
export function validatorOf(s: Schema): ValidateFunction {
  let v = compiled.get(s)
  if (!v) compiled.set(s, (v = ajv.compile(nullableEnums(structuredClone(s)))))
  return v
}

/**
 * The document writes a nullable enum (TypeBox's union with null) as `enum` + `nullable: true`;
 * read, as the server and generated clients do, as taking null too (strict OpenAPI 3.0.3 would
 * want null listed in the enum).
 */
function nullableEnums(s: Schema): Schema {
  if (s.nullable && s.enum && !s.enum.includes(null)) s.enum = [...s.enum, null]
  for (const p of Object.values(s.properties ?? {})) nullableEnums(p)
  if (s.items) nullableEnums(s.items)
  for (const v of s.oneOf ?? []) nullableEnums(v)
  return s
}

/** An object schema with `oneOf` variants as one object schema per variant: the object's fields and the variant's. */
export function variantsOf(s: Schema): Schema[] {
  if (s.type !== 'object' || !s.oneOf) return [s]
  const { oneOf, ...own } = s
  return oneOf.map((v) => ({
    ...own, type: 'object',
    properties: { ...own.properties, ...v.properties },
    required: [...new Set([...(own.required ?? []), ...(v.required ?? [])])],
  }))
}

/** A JSON token written as is: a number as the client spelled it (`1e400`, `-0`), which no JS value says. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object with a key written more than once; JSON.parse, and so the server, keeps the last. */
export class DuplicateKeys {
  constructor(readonly entries: [string, unknown][]) {}
}

/** JSON text of a value that may hold raw tokens and duplicate keys. */
export function toJson(v: unknown): string {
  if (v instanceof RawJson) return v.text
  if (v instanceof DuplicateKeys) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`
  return JSON.stringify(v) ?? 'null'
}

/** Sets an own key, even `__proto__`, as JSON.parse would. */
export function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
}

// ---- edge values ----

export const INT_EDGES = [
  2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 2 ** 63, 1e20, -1e20, 1e300,
  -1e300, Number.MAX_VALUE,
]
const FRACTIONS = [0.5, 1.5, -0.5, 1e-7, 0.30000000000000004, Number.MIN_VALUE, 1.0000000000000002, 2147483647.5]
/** Numbers as a client may write them: negative zero, exponents, beyond double range, more digits than a double holds. */
export const RAW_NUMBERS = [
  '-0', '-0.0', '1.0', '1E2', '1e+2', '0e0', '1e400', '-1e400', '1e-400', '123456789012345678901234567890', '2147483648.0',
  '9007199254740993', '2.5e1', '0.1e1', '100000000000000000000e-20',
].map((t) => new RawJson(t))

/** Depths of nesting sent inside the 64 KiB body limit. */
const deep = (depth: number, kind: 'array' | 'object') =>
  new RawJson(kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth))
export const DEEP_VALUES = [deep(64, 'array'), deep(1000, 'array'), deep(20_000, 'array'), deep(64, 'object'), deep(8000, 'object')]

/** Legal text that breaks naive handling: combining marks, bidi controls, zero widths, astral and odd code points. */
const AWKWARD_PIECES = [
  'a', 'Z', '0', ' ', 'é', 'e\u0301', 'Z\u0336\u0336\u0336', '\u202E', '\u202D', '\u202C', '\u2066', '\u2069', '\u200B', '\u200D', '\uFEFF',
  '\u00A0', '\u3000', '\u2028', '\u0085', '😀', '👩‍👩‍👧‍👦', '𝕏', '\u{10FFFF}', '\uFFFF', '\uFFFE', 'ß', 'İ', 'ﷺ', 'ﬀ', 'Ω', 'Ⅻ', '١', '"', '\\',
  '/', '%', '%00', '&', '=', '?', '#', '+', ';', '<', '>', "'", '`', '$', '{', '}', '\t', '\n', '\r',
]

/** Text no field should hold, or that is over any bound: NUL, lone surrogates, 10,000 characters. */
export const HOSTILE_TEXT = [
  '', ' ', '   ', '\t', '\u0000', 'a\u0000b', '\uD800', 'a\uDC00b', '\uDBFF\uDBFF', '\uDFFF\uD800', 'e' + '\u0301'.repeat(300),
  '\u202Eevil\u202C', '\u2066x', '\u200B', '\uFEFF', "' OR 1=1 --", '"; DROP TABLE x; --', '%s%n%x', '../../etc/passwd', '<script>x</script>',
  '${x}', 'null', 'undefined', 'NaN', '-0', '1e20', '2147483648', 'x'.repeat(10_000), '\u0301'.repeat(10_000), '😀'.repeat(5000),
  'é'.repeat(10_000), 'a\r\nb: c',
]

export const WRONG_TYPES: unknown[] = [true, false, null, 0, 1, -1, '5', '', [], [1], ['a'], {}, { a: 1 }]

/** A value of some other kind than the schema's, or nested deeply. */
const wrongType = (s: Schema): fc.Arbitrary<unknown> => fc.constantFrom(
  ...WRONG_TYPES.filter((v) => !validatorOf(s)(structuredClone(v))),
  ...DEEP_VALUES,
)

// ---- valid values ----

const textOf = (minLength: number, maxLength: number) => fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...AWKWARD_PIECES), { minLength: Math.max(1, minLength), maxLength: Math.min(12, maxLength) }).map((p) => p.join('')) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 40) }) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(maxLength), '😀'.repeat(maxLength), 'e\u0301'.repeat(Math.floor(maxLength / 2)), 'x'.repeat(minLength)) },
)

/** Strings the schema accepts, found by generating candidates and keeping those its validator takes. */
function validString(s: Schema): fc.Arbitrary<string> {
  if (s.enum) return fc.constantFrom(...(s.enum as string[]))
  const ok = validatorOf(s)
  const minLength = s.minLength ?? 0
  const maxLength = Math.min(s.maxLength ?? 10_000, 10_000)
  let candidates: fc.Arbitrary<string>
  if (s.format === 'uuid') {
    candidates = fc.oneof(
      { weight: 6, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
      { weight: 1, arbitrary: fc.uuid().map((u) => `urn:uuid:${u}`) },
      { weight: 1, arbitrary: fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff') },
    )
  } else if (s.format === 'email') {
    candidates = fc.oneof(fc.emailAddress(), fc.constantFrom('A@B.CO', 'x+tag@example.com', `${'a'.repeat(64)}@example.com`, "o'hara@example.com"))
  } else if (s.format === 'date') {
    // Calendar dates, leap days and the ends of the range among them.
    candidates = fc.oneof(
      { weight: 4, arbitrary: fc.date({ min: new Date('1900-01-01'), max: new Date('2200-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)) },
      { weight: 1, arbitrary: fc.constantFrom('2024-02-29', '0001-01-01', '9999-12-31', '2026-12-31') },
    )
  } else if (s.pattern && !s.pattern.includes('(?')) {
    candidates = fc.oneof({ weight: 3, arbitrary: fc.stringMatching(new RegExp(s.pattern, 'u')) }, { weight: 1, arbitrary: textOf(minLength, maxLength) })
  } else {
    candidates = textOf(minLength, maxLength)
  }
  const fallback = [...fc.sample(candidates, { numRuns: 200, seed: 1 }), 'x'.repeat(Math.max(1, minLength)), 'a', 'P1D']
    .find((c) => ok(c))
  if (fallback === undefined) throw new Error(`No sample string fits ${JSON.stringify(s)}`)
  return candidates.map((c) => (ok(c) ? c : fallback))
}

function validInteger(s: Schema): fc.Arbitrary<number> {
  const min = s.minimum ?? -(2 ** 31)
  const max = s.maximum ?? 2 ** 31 - 1
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  )
}

export interface ValueOptions {
  /** Values that mean something to the server (a real avatar id), by property name. */
  known: Record<string, unknown[]>
}

/** Values `s` accepts: known ones by field name first, else generated ones biased to bounds and awkward text. */
export function validValue(s: Schema, o: ValueOptions, name?: string, depth = 0): fc.Arbitrary<unknown> {
  const known = name !== undefined ? o.known[name]?.filter((k) => validatorOf(s)(structuredClone(k))) : undefined
  const own = validOwnValue(s, o, depth)
  const base = known?.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: own }) : own
  return s.nullable ? fc.oneof({ weight: 4, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) }) : base
}

function validOwnValue(s: Schema, o: ValueOptions, depth: number): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum)
  switch (s.type) {
    case 'string': return validString(s)
    case 'integer': return validInteger(s)
    case 'number': return fc.oneof(validInteger(s), fc.double({ noNaN: true, noDefaultInfinity: true, ...bounds(s) }))
    case 'boolean': return fc.boolean()
    case 'array': return arrayOf(s, o, depth, s.minItems ?? 0)
    case 'object': return s.oneOf ? fc.oneof(...variantsOf(s).map((v) => objectOf(v, o, depth))) : objectOf(s, o, depth)
    default: return fc.jsonValue({ maxDepth: 2 })
  }
}

const bounds = (s: Schema) => ({ ...(s.minimum !== undefined ? { min: s.minimum } : {}), ...(s.maximum !== undefined ? { max: s.maximum } : {}) })

const arrayOf = (s: Schema, o: ValueOptions, depth: number, minLength: number) =>
  fc.array(validValue(s.items ?? {}, o, undefined, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(s.maxItems ?? 4, 4)) })

/** Every property, required ones always, optional ones more often than not. */
function objectOf(s: Schema, o: ValueOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(s.required ?? [])
  const entries = Object.entries(s.properties ?? {}).map(([k, p]) => fc.tuple(
    fc.constant(k),
    required.has(k) ? fc.constant(true) : fc.integer({ min: 0, max: 9 }).map((n) => n < 7),
    validValue(p, o, k, depth + 1),
  ))
  return fc.tuple(...entries).map((es) => {
    const out: Record<string, unknown> = {}
    for (const [k, present, v] of es) if (present) setKey(out, k, v)
    return out
  })
}

/** Values the schema must refuse: at and beyond each bound, of another type, hostile text, deep nesting. */
function faultyValue(s: Schema, o: ValueOptions, depth: number): fc.Arbitrary<unknown> {
  const arbs: fc.Arbitrary<unknown>[] = [wrongType(s)]
  const type = s.enum ? 'enum' : s.type
  if (type === 'integer' || type === 'number') {
    const near = [s.minimum, s.maximum].filter((b): b is number => b !== undefined).flatMap((b) => [b - 1, b + 1, b - 0.5, b + 0.5])
    // Beyond a bound is what a number field is most likely to get wrong: weighted so.
    arbs.push(fc.constantFrom(...near, ...INT_EDGES, ...FRACTIONS, ...RAW_NUMBERS), fc.constantFrom(...near, ...INT_EDGES, ...RAW_NUMBERS))
  } else if (type === 'string') {
    const max = s.maxLength
    const sized = max !== undefined && max < 10_000 ? ['x'.repeat(max + 1), '😀'.repeat(max + 1), 'é'.repeat(max + 1)] : []
    arbs.push(fc.constantFrom(...HOSTILE_TEXT, ...sized))
    if (s.format === 'date') arbs.push(fc.constantFrom('2026-02-29', '2026-13-01', '2026-3-2', '2026-03-02T00:00:00', '20260302', '+002026-03-02'))
    if (s.format === 'uuid') {
      arbs.push(fc.oneof(
        fc.uuid().map((u) => `urn:uuid:${u}`),
        fc.constantFrom('{00000000-0000-0000-0000-000000000000}', '00000000000000000000000000000000', 'not-a-uuid', '00000000-0000-0000-0000-0000000000000'),
      ))
    }
  } else if (type === 'enum') {
    const first = String(s.enum![0])
    arbs.push(fc.constantFrom('SPACESHIP', first.toLowerCase(), ` ${first}`, `${first}\u0000`, `${first}\u0301`, ''))
  } else if (type === 'array') {
    const tooMany = (s.maxItems ?? 20) + 1
    arbs.push(
      fc.array(validValue(s.items ?? {}, o, undefined, depth + 1), { minLength: tooMany, maxLength: tooMany }),
      fc.constant(Array.from({ length: 2000 }, () => 1)),
    )
  }
  return fc.oneof(...arbs)
}

/** Marks a required field left out. */
export const ABSENT = Symbol('absent')

/**
 * The few values of a schema most likely to slip past a validator into storage, each tried on
 * every field (not left to chance): beyond a stored integer and a double's exact range, beyond
 * double range, text PostgreSQL refuses, one character over the bound, a UUID spelled otherwise.
 */
export function edgeValues(s: Schema): unknown[] {
  if (s.enum) return []
  if (s.type === 'integer' || s.type === 'number') {
    const overMax = s.maximum !== undefined && s.maximum < 2 ** 31 - 1 ? [s.maximum + 1] : []
    return [...overMax, 2 ** 31, -(2 ** 31) - 1, new RawJson('9007199254740993'), new RawJson('1e400'), 1.5]
  }
  if (s.type === 'string') {
    const over = 'x'.repeat(Math.min(s.maxLength ?? 10_000, 10_000) + 1)
    return ['a\u0000b', 'a\uD800b', over, ...(s.format === 'uuid' ? ['urn:uuid:00000000-0000-4000-8000-000000000000'] : [])]
  }
  return []
}

/**
 * A value of a schema with one field wrong: `at` points at it ('' for the value itself); `value`
 * draws any fault, `edges` one value for each of `edgeValues`.
 */
interface Fault { at: string; value: fc.Arbitrary<unknown>; edges: fc.Arbitrary<unknown>[] }

/**
 * For the value itself and each field inside it (nested objects, an array's first item), a value
 * of `s` that is valid but for that one field: beyond its bounds, of a wrong type, hostile, or
 * (when required) missing.
 */
export function faultsOf(s: Schema, o: ValueOptions, depth = 0): Fault[] {
  // Each variant's fields, wrong in the variant that takes them.
  if (s.oneOf) return variantsOf(s).flatMap((v, i) => faultsOf(v, o, depth).filter((f) => i === 0 || f.at !== ''))
  const faults: Fault[] = [{ at: '', value: faultyValue(s, o, depth), edges: edgeValues(s).map((v) => fc.constant(v)) }]
  if (depth >= 3) return faults
  const nest = (inner: Fault, at: string, into: (v: unknown) => fc.Arbitrary<unknown>): Fault => ({
    at: `${at}${inner.at}`, value: inner.value.chain(into), edges: inner.edges.map((e) => e.chain(into)),
  })
  if (s.type === 'object' && s.properties) {
    const whole = objectOf(s, o, depth)
    const put = (k: string) => (v: unknown) => whole.map((obj) => {
      const out = { ...obj }
      if (v === ABSENT) delete out[k]
      else setKey(out, k, v)
      return out
    })
    for (const [k, p] of Object.entries(s.properties)) {
      if (s.required?.includes(k)) faults.push({ at: `/${k}`, value: put(k)(ABSENT), edges: [] })
      for (const inner of faultsOf(p, o, depth + 1)) faults.push(nest(inner, `/${k}`, put(k)))
    }
  } else if (s.type === 'array' && s.items) {
    const rest = arrayOf(s, o, depth, 0).map((a) => a.slice(0, Math.max(0, (s.maxItems ?? 4) - 1)))
    for (const inner of faultsOf(s.items, o, depth + 1)) faults.push(nest(inner, '/0', (v) => rest.map((more) => [v, ...more])))
  }
  return faults
}

// ---- whole bodies ----
