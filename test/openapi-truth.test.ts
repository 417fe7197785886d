/**
 * The API document holds to the server: what the server answers, the document says. For every
 * operation, requests malformed where the platform judges them (the query string, each path
 * parameter, the body of every method whose body is read) are answered with the status the
 * platform gives, and that status is one the document lists for the operation. No parameter with a
 * default is required. What the server refuses of a field, its schema in the document refuses too
 * (checked against the document, then against the server: 400 `validation` naming the field,
 * before any handler). The fuzz holds every answer it draws to the same document (fuzz.test.ts).
 */
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { TestApp } from './support/app.js'
import { clip, fuzzWorld, undocumentedStatus, type FuzzWorld, type Operation } from './support/fuzz-world.js'
import { encodeText } from './support/openapi-wire.js'
import { internalDocument } from './support/internal-document.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

let world: FuzzWorld
let app: TestApp
/** Every operation of the document, streams too (a malformed request never opens one). */
let operations: Operation[]
interface DocParameter { name: string; in: string; required?: boolean; schema?: { default?: unknown } }
let doc: { paths: Record<string, Record<string, { parameters?: DocParameter[]; responses?: Record<string, unknown>; requestBody?: { content: Record<string, { schema: object }> } }>> }
/** The routes only services call (/internal/openapi.json). */
let internalDoc: typeof doc

beforeAll(async () => {
  world = await fuzzWorld()
  app = world.app
  doc = (await app.inject({ url: '/openapi.json' })).json()
  internalDoc = await internalDocument(app)
  operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({
    key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, params: [], statuses: Object.keys(op.responses ?? {}).map(Number),
    pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
  })))
}, 60_000)
afterAll(() => app?.close())

/** The operation's URL with a real value in each path parameter, and `value` (encoded) in `name`'s. */
function urlOf(op: Operation, name?: string, value?: string): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, p: string) => (p === name ? value! : encodeText(world.pathValues(op, p)[0] ?? 'x')))
}

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE']

/** The fields a 400 `validation` names (each once). */
async function refusedFields(res: Awaited<ReturnType<TestApp['inject']>>): Promise<string[]> {
  expect(res.statusCode, res.body).toBe(400)
  expect(res.json().type, res.body).toBe('/problems/validation')
  return [...new Set((res.json().errors as { path: string }[]).map((e) => e.path))]
}

/** The malformed requests of an operation, each with the status the platform answers it with. */
function malformedRequestsOf(op: Operation & { pathParams?: string[] }): { what: string; url: string; status: number; headers?: Record<string, string>; payload?: string; field?: string }[] {
  const url = urlOf(op)
  const requests: ReturnType<typeof malformedRequestsOf> = [
    { what: 'a NUL in the query string', url: `${url}?q=%00`, status: 400 },
    { what: 'a query string escape that is not UTF-8', url: `${url}?q=%ED%A0%80`, status: 400 },
  ]
  for (const name of op.pathParams ?? []) {
    requests.push(
      { what: `a ${name} of 201 characters`, url: urlOf(op, name, 'a'.repeat(201)), status: 414 },
      { what: `a ${name} badly escaped`, url: urlOf(op, name, 'a%ZZ'), status: 400 },
      { what: `a ${name} with a NUL`, url: urlOf(op, name, 'a%00b'), status: 400 },
    )
  }
  if (!BODY_METHODS.includes(op.method)) return requests
  const json = { 'content-type': 'application/json' }
  return [
    ...requests,
    { what: 'a body that is not JSON', url, status: 400, headers: json, payload: '{"a":' },
    // An import takes files of up to 24 MiB: 64 KiB of something else is no import document.
    { what: 'a body over 64 KiB', url, status: op.path.endsWith('/import') ? 400 : 413, headers: json, payload: JSON.stringify({ pad: 'x'.repeat(70_000) }) },
    { what: 'a body of another media type', url, status: 415, headers: { 'content-type': 'application/xml' }, payload: '<a/>' },
    // Text no field can hold, in a field the operation does not take: refused all the same (`validation`, /problems/validation).
    { what: 'a NUL in a body field', url, status: 400, headers: json, payload: '{"unknown":"a\\u0000b"}', field: 'body/unknown' },
    { what: 'a lone surrogate in a body field', url, status: 400, headers: json, payload: '{"unknown":"a\\ud800b"}', field: 'body/unknown' },
  ]
}

describe('the document lists what the server answers', () => {
  test('every operation answers malformed requests as the platform does, with statuses its document lists', async () => {
    const faults: string[] = []
    let sent = 0
    for (const op of operations) {
      for (const r of malformedRequestsOf(op)) {
        sent++
        const res = await app.inject({ method: op.method as 'GET', url: r.url, headers: { ...world.a.auth, ...r.headers }, ...(r.payload === undefined ? {} : { payload: r.payload }) })
        const label = `${op.key} with ${r.what}`
        if (res.statusCode !== r.status) faults.push(`${label}: ${res.statusCode}, not ${r.status}: ${clip(res.body, 200)}`)
        else if (r.field && !(res.json().errors as { path: string }[] | undefined)?.some((e) => e.path === r.field)) faults.push(`${label}: ${r.field} not named: ${clip(res.body, 200)}`)
        const undocumented = undocumentedStatus(op, r.url, res)
        if (undocumented) faults.push(`${label}: ${undocumented}`)
      }
    }
    expect(faults).toEqual([])
    expect(sent).toBeGreaterThan(500)
  })

  test('no parameter with a default is required: a client may leave it out, and the server then takes the default', async () => {
    const faults: string[] = []
    let defaults = 0
    for (const [path, item] of [...Object.entries(doc.paths), ...Object.entries(internalDoc.paths)]) {
      for (const [method, op] of Object.entries(item)) {
        for (const p of op.parameters ?? []) {
          if (p.schema?.default === undefined) continue
          defaults++
          if (p.required) faults.push(`${method.toUpperCase()} ${path}: ${p.in} parameter ${p.name} has a default and is required`)
        }
      }
    }
    expect(faults).toEqual([])
    expect(defaults).toBeGreaterThanOrEqual(12)
    // Left out, it is the default (50 habits a page): a page of one habit has no `next`.
    const res = await app.inject({ url: `/api/v1/habits?avatarId=${world.a.avatarId}`, headers: world.a.auth })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ next: null })
  })
})

describe('a field the operation does not take', () => {
  test('is ignored, in the query or the body, unless the body schema forbids it (/problems/validation says which)', async () => {
    const schemaOf = (path: string, method: string) => doc.paths[path]![method]!.requestBody!.content['application/json']!.schema as { additionalProperties?: boolean }
    expect((await app.inject({ url: '/api/v1/quests?unknown=1', headers: world.c.auth })).statusCode).toBe(200)
    expect(schemaOf('/api/v1/avatars/{id}/name', 'patch').additionalProperties).not.toBe(false)
    const renamed = await app.inject({ method: 'PATCH', url: `/api/v1/avatars/${world.c.avatarId}/name`, headers: world.c.auth, payload: { name: 'Fuzz Guest', unknown: 'ab' } })
    expect(renamed.statusCode, renamed.body).toBe(204)
    // Webhook endpoints forbid more: a misspelt field would otherwise leave the endpoint other than meant.
    expect(schemaOf('/api/v1/me/webhooks', 'post').additionalProperties).toBe(false)
    const hook = { url: 'https://example.com/hooks/questline', events: ['AvatarChanged'], unknown: 'ab' }
    expect(await refusedFields(await app.inject({ method: 'POST', url: '/api/v1/me/webhooks', headers: world.c.auth, payload: hook }))).toEqual(['body/unknown'])
    const page = (await app.inject({ url: '/problems/validation' })).json()
    expect(page.description).toContain('additionalProperties: false')
    expect(page.description).toContain('in the query string, the path or the body, in any field, known or not')
  })
})

describe('what the server refuses of a field, the document refuses', () => {
  /** The document's schema of an operation's JSON body, read as the server reads a body (nothing coerced, formats checked). */
  const bodySchemaOf = (path: string, method: string) => {
    const ajv = addFormats(new Ajv({ allErrors: true, strict: false }))
    return ajv.compile(doc.paths[path]![method]!.requestBody!.content['application/json']!.schema)
  }
  const habit = { avatarId: '', title: 'Stretch', recurrenceType: 'DAILY' }

  test.each([
    ['an empty tag', { tags: ['fine', ''] }, 'body/tags/1'],
    ['a blank tag', { tags: ['   '] }, 'body/tags/0'],
    ['a WEEKLY habit without its day', { recurrenceType: 'WEEKLY' }, 'body/dayOfWeek'],
    ['a WEEKLY habit with a day of the month too', { recurrenceType: 'WEEKLY', dayOfWeek: 'MONDAY', dayOfMonth: 3 }, 'body/dayOfMonth'],
    ['a DAILY habit with a number of days', { everyNDays: 3 }, 'body/everyNDays'],
    ['a TIMES_PER_WEEK habit with a weekday', { recurrenceType: 'TIMES_PER_WEEK', timesPerWeek: 2, dayOfWeek: 'MONDAY' }, 'body/dayOfWeek'],
    ['an EVERY_N_DAYS habit of 1 day', { recurrenceType: 'EVERY_N_DAYS', everyNDays: 1 }, 'body/everyNDays'],
    ['an unknown recurrence type', { recurrenceType: 'HOURLY' }, 'body/recurrenceType'],
  ])('creating a habit with %s', async (_case, change, field) => {
    const body = { ...habit, avatarId: world.a.avatarId, ...change }
    expect(bodySchemaOf('/api/v1/habits', 'post')(body), 'the document accepts it').toBe(false)
    const res = await app.inject({ method: 'POST', url: '/api/v1/habits', headers: world.a.auth, payload: body })
    expect(await refusedFields(res)).toEqual([field])
  })

  test('a recurrence change whose fields do not fit its type', async () => {
    const url = `/api/v1/habits/${world.pathValues({ path: '/api/v1/habits/{id}' }, 'id')[0]}/recurrence`
    for (const [body, field] of [
      [{ type: 'MONTHLY' }, 'body/dayOfMonth'], [{ type: 'DAILY', timesPerWeek: 2 }, 'body/timesPerWeek'], [{ type: 'MONTHLY', dayOfMonth: 32 }, 'body/dayOfMonth'],
    ] as const) {
      expect(bodySchemaOf('/api/v1/habits/{id}/recurrence', 'patch')(body), JSON.stringify(body)).toBe(false)
      const res = await app.inject({ method: 'PATCH', url, headers: world.a.auth, payload: body })
      expect(await refusedFields(res), JSON.stringify(body)).toEqual([field])
    }
    const fits = await app.inject({ method: 'PATCH', url, headers: world.a.auth, payload: { type: 'WEEKLY', dayOfWeek: 'MONDAY', dayOfMonth: null } })
    expect(fits.statusCode, fits.body).toBe(204)
  })

  test("a quest's habit whose fields a habit would not take", async () => {
    const entry = { habitId: 'stretch', title: 'Stretch', recurrence: { type: 'DAILY' } }
    for (const [change, field] of [
      [{ tags: [''] }, 'body/habits/0/tags/0'], [{ title: '  ' }, 'body/habits/0/title'],
      [{ recurrence: { type: 'WEEKLY' } }, 'body/habits/0/recurrence/dayOfWeek'], [{ recurrence: { type: 'DAILY', everyNDays: 3 } }, 'body/habits/0/recurrence/everyNDays'],
    ] as const) {
      const body = { name: 'Quest', habits: [{ ...entry, ...change }] }
      expect(bodySchemaOf('/api/v1/quests', 'post')(body), JSON.stringify(change)).toBe(false)
      const res = await app.inject({ method: 'POST', url: '/api/v1/quests', headers: world.a.auth, payload: body })
      expect(await refusedFields(res), JSON.stringify(change)).toEqual([field])
    }
  })

  test("a guild's name, a nickname and a chat message: blank, or shorter than the rules allow", async () => {
    const guild = world.pathValues({ path: '/api/v1/guilds/{id}' }, 'id')[0]!
    const founding = { name: 'Dawn Runners', creatorAvatarId: world.c.avatarId, creatorNickname: 'Cy' }
    for (const [change, field] of [
      [{ name: 'ab' }, 'body/name'], [{ name: '    ' }, 'body/name'], [{ creatorNickname: '' }, 'body/creatorNickname'], [{ creatorNickname: '  ' }, 'body/creatorNickname'],
    ] as const) {
      const body = { ...founding, ...change }
      expect(bodySchemaOf('/api/v1/guilds', 'post')(body), JSON.stringify(change)).toBe(false)
      const res = await app.inject({ method: 'POST', url: '/api/v1/guilds', headers: world.c.auth, payload: body })
      expect(await refusedFields(res), JSON.stringify(change)).toEqual([field])
    }
    for (const text of ['', ' \n ']) {
      expect(bodySchemaOf('/api/v1/guilds/{id}/messages', 'post')({ text }), JSON.stringify(text)).toBe(false)
      const res = await app.inject({ method: 'POST', url: `/api/v1/guilds/${guild}/messages`, headers: world.a.auth, payload: { text } })
      expect(await refusedFields(res), JSON.stringify(text)).toEqual(['body/text'])
    }
  })

  test('an attendance at a date-time that is none', async () => {
    const id = world.pathValues({ path: '/api/v1/habits/{id}' }, 'id')[0]
    for (const date of ['0', '2026-03-02', '2026-13-02T10:00:00', '2026-03-02T24:00:00', '2026-03-02T10:00:00Z']) {
      expect(bodySchemaOf('/api/v1/habits/{id}/attend', 'post')({ date }), date).toBe(false)
      const res = await app.inject({ method: 'POST', url: `/api/v1/habits/${id}/attend`, headers: world.a.auth, payload: { date } })
      expect(await refusedFields(res), date).toEqual(['body/date'])
    }
  })

  test('an instant of the year 0', async () => {
    const service = { authorization: `Bearer ${await app.issueToken(world.a.userId, 'service')}` }
    const earnings = (from: string) => app.injectAt('avatar', { url: `/internal/v1/avatars/${world.a.avatarId}/earnings?from=${from}&to=2026-04-01T00:00:00Z`, headers: service })
    for (const from of ['0000-00-00T00:00:00Z', '0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-03-01T00:00:00+01:00']) {
      expect(await refusedFields(await earnings(from)), from).toEqual(['querystring/from'])
    }
    expect((await earnings('0001-01-01T00:00:00Z')).statusCode).toBe(200)
  })
})
