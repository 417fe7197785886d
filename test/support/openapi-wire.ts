/**
 * What a request carries besides the values of its fields, as a fuzz varies it: twists of a whole
 * body (unknown, duplicate, dropped and deeply nested keys), bodies that are no JSON object of
 * fields, and URL text: percent-encoding, odd escapes, values beyond a parameter's bounds.
 */
import fc from 'fast-check'
import {
  DEEP_VALUES, DuplicateKeys, edgeValues, HOSTILE_TEXT, INT_EDGES, RAW_NUMBERS, RawJson, setKey, validValue, WRONG_TYPES,
  type Schema, type ValueOptions,
} from './openapi-arbitraries.js'

/** Keys no schema declares, some of which trip parsers (`__proto__`) or storage (NUL). */
const UNKNOWN_KEYS = ['extra', '__proto__', 'constructor', 'prototype', '', ' ', '$ref', 'a.b', 'x'.repeat(10_000), '\u0000', '\uD800', '😀', '_links']

/** One change to a body that a schema-shaped generator would not make. */
export type Twist =
  | { kind: 'unknown-key'; key: string; value: unknown }
  | { kind: 'duplicate-key'; pick: number; value: unknown; last: boolean }
  | { kind: 'drop-key'; pick: number }
  | { kind: 'nest'; pick: number; value: unknown }

export const twist = (): fc.Arbitrary<Twist> => {
  const anyValue = fc.oneof(fc.constantFrom(...WRONG_TYPES, ...HOSTILE_TEXT.slice(0, 12), ...INT_EDGES, ...RAW_NUMBERS), fc.jsonValue({ maxDepth: 3 }))
  return fc.oneof(
    fc.record({ kind: fc.constant('unknown-key' as const), key: fc.oneof(fc.constantFrom(...UNKNOWN_KEYS), fc.string({ maxLength: 8 })), value: anyValue }),
    fc.record({ kind: fc.constant('duplicate-key' as const), pick: fc.nat(), value: anyValue, last: fc.boolean() }),
    fc.record({ kind: fc.constant('drop-key' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('nest' as const), pick: fc.nat(), value: fc.constantFrom(...DEEP_VALUES) }),
  )
}

/** Applies twists to an object body (other bodies pass unchanged); duplicate keys make it a DuplicateKeys. */
export function applyTwists(body: unknown, twists: Twist[]): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || body instanceof RawJson) return body
  let entries: [string, unknown][] = Object.entries(body)
  let duplicated = false
  for (const t of twists) {
    const at = entries.length ? ('pick' in t ? t.pick % entries.length : 0) : -1
    if (t.kind === 'unknown-key') entries.push([t.key, t.value])
    else if (at < 0) continue
    else if (t.kind === 'drop-key') entries.splice(at, 1)
    else if (t.kind === 'nest') entries[at] = [entries[at]![0], t.value]
    else {
      const [k, v] = entries[at]!
      entries = t.last ? [...entries, [k, t.value]] : [[k, t.value], ...entries.slice(0, at), [k, v], ...entries.slice(at + 1)]
      duplicated = true
    }
  }
  if (duplicated) return new DuplicateKeys(entries)
  const out: Record<string, unknown> = {}
  for (const [k, v] of entries) setKey(out, k, v)
  return out
}

/** Body texts that are not a JSON object of fields, or are too large. */
export const ODD_BODIES = [
  '', ' ', '{', '{"a":', '}', 'null', '[]', '"x"', '0', '-0', 'true', '[1]', '{"a":1}}', '{}garbage', '\uFEFF{}', "{'a':1}", '{"a":1,}',
  '{"a":NaN}', '{"a":Infinity}', '{"a":undefined}', '{"a":0x10}', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"\\u0000":1}', '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}', `{"pad":"${'x'.repeat(70_000)}"}`, '['.repeat(30_000) + ']'.repeat(30_000),
  '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), `[${'1,'.repeat(30_000)}1]`,
]

// ---- text for URLs ----

/** Percent-encodes text as UTF-8; a lone surrogate becomes the three bytes it would take (not UTF-8). */
export function encodeText(s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const next = s.charCodeAt(i + 1)
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(s.slice(i, i + 2))
      i++
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('')
    } else {
      out += encodeURIComponent(s[i]!)
    }
  }
  return out
}

/** URL text (already encoded) that no parameter should take quietly. */
export const ODD_URL_TEXT = [
  '%00', 'a'.repeat(500), 'a'.repeat(201), '..%2F..', '%2e%2e', '%E0%A4%A', '%ED%A0%80', '%FF', '%', '%zz', '%20', '%C2%85', '%E2%80%AE', '-0',
  '1e20', '2147483648', '9007199254740993', '1.5', '0', '-1', 'null', '%7B00000000-0000-0000-0000-000000000000%7D', 'NaN', 'Infinity', '0x10',
  encodeText('x'.repeat(70)), encodeText('😀'.repeat(65)), encodeText('e\u0301'), encodeText('\u202Eevil'),
]

/** URL text (encoded) of values `s` accepts. */
/** A value as query text: a list as its items joined by commas, anything else as its text (an object, which has none of its own, as JSON). */
const asQueryText = (v: unknown): string =>
  Array.isArray(v) ? v.map(asQueryText).join(',') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)

export const queryTextOf = (s: Schema, o: ValueOptions, name: string): fc.Arbitrary<string> => validValue(s, o, name).map((v) => encodeText(asQueryText(v)))

/** `edgeValues` as URL text. */
export const edgeTextOf = (s: Schema): string[] => edgeValues(s).map((v) => encodeText(v instanceof RawJson ? v.text : String(v)))

/** URL text (encoded) `s` must refuse: beyond its bounds when a number (weighted so), odd escapes, hostile text. */
export function queryFaultOf(s: Schema): fc.Arbitrary<string> {
  const near = [s.minimum, s.maximum].filter((b): b is number => b !== undefined).flatMap((b) => [b - 1, b + 1, b + 0.5].map(String))
  const beyond = [...near, '2147483648', '-2147483649', '9007199254740993', '1e20', '1e400', '-1e400', '1.5']
  const numericText = ['-0', '', '0x1F', '1,2', ' 5', '5 ', 'Infinity', 'NaN', '+1', '١٢', '00001', 'true', '1e2']
  const isNumber = s.type === 'integer' || s.type === 'number'
  return fc.oneof(
    { weight: isNumber ? 4 : 1, arbitrary: fc.constantFrom(...beyond).map(encodeText) },
    { weight: 1, arbitrary: fc.constantFrom(...numericText).map(encodeText) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_URL_TEXT) },
    // Kept under the 16 KiB a server reads of a request line and headers.
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_TEXT).map(encodeText).filter((t) => t.length <= 12_000) },
  )
}
