import { Type, type TSchema } from 'typebox'

/** A string enum as plain JSON Schema `enum` (clear validation messages, clean OpenAPI). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

/** The largest whole number a PostgreSQL integer column holds: a bound for numbers that reach a query. */
export const STORED_INT_MAX = 2_147_483_647

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
)

/** Response entries for the problem statuses a route can answer, for the OpenAPI document. */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {}
  for (const s of statuses) out[s] = Type.Ref('Problem')
  return out
}

export const NoContent = Type.Null({ description: 'No content' })

/** Answers 204 with no body. */
export function noContent(reply: { code(status: number): unknown }): null {
  reply.code(204)
  return null
}

/** An avatar id as clients send it (DESIGN §4): the one shape every context accepts. */
export const AvatarIdString = (options: Record<string, unknown> = {}) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: '1–64 characters of A–Z, a–z, 0–9, _ and -', ...options })
