/**
 * The API document as a client generator and a reader take it: every operation is named
 * like a client method, summed up in a line, described with its rule and tagged with its context,
 * and the document says where it is served and what each tag holds. Every error status an operation
 * declares lists the problem types it answers with, each documented at its URI. Every request body
 * comes with an example body that its schema accepts.
 */
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'
import { newPlayer } from './support/players.js'
import { internalDocument } from './support/internal-document.js'

/** The tags an operation of the public document may carry: one per context, plus `account` (the /me routes). */
const TAGS = ['auth', 'account', 'avatars', 'items', 'habits', 'quests', 'guilds', 'battles', 'leagues', 'marketplace', 'inbox', 'stream', 'problems']
/** The internal document's one tag: routes only services call. */
const INTERNAL_TAGS = ['service']
/** Every operation only services call, each under /internal/v1 (its context's process answers it; no gateway forwards it). */
const INTERNAL_OPERATIONS = [
  'PUT /internal/v1/avatars/{id}', 'GET /internal/v1/avatars/{id}/owner', 'GET /internal/v1/avatars/{id}/profile', 'GET /internal/v1/avatar-profiles',
  'GET /internal/v1/avatars/{id}/earnings', 'GET /internal/v1/exports/avatars', 'GET /internal/v1/exports/avatars/{id}/league',
  'GET /internal/v1/exports/guilds/avatars/{id}/messages',
  'PUT /internal/v1/habits/{id}', 'POST /internal/v1/habits/quest-unlinks', 'GET /internal/v1/exports/tracking/avatars/{id}/settings',
  'GET /internal/v1/exports/tracking/avatars/{id}/habits', 'GET /internal/v1/exports/tracking/habits/{id}/history',
  'GET /internal/v1/exports/guilds/avatars/{id}', 'GET /internal/v1/exports/quests/avatars/{id}',
  'GET /internal/v1/exports/marketplace/avatars/{id}', 'GET /internal/v1/exports/notifications/avatars/{id}',
]
const OPERATION_ID = /^[a-z][a-zA-Z0-9]+$/
const SUMMARY_MAX = 70
/** The keys of a path item that are operations (the others are parameters, servers, …). */
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
/** A `uuid` as the server takes it (platform/http/validation.ts): 8-4-4-4-12 hex, no `urn:uuid:`. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** The content types whose bodies are JSON. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/

interface ProblemExample {
  value: { type: string; title: string; status: number }
}
interface MediaType {
  schema?: object
  example?: unknown
  examples?: Record<string, { value?: unknown }>
}
interface Operation {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  requestBody?: { content?: Record<string, MediaType> }
  responses?: Record<string, { description?: string; content?: Record<string, { examples?: Record<string, ProblemExample> }> }>
}
interface ProblemTypeView {
  type: string
  status: number
  statusVaries?: boolean
  title: string
  description: string
}
interface ApiDocument {
  servers?: { url: string; description?: string }[]
  tags?: { name: string; description?: string }[]
  paths: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, object> }
}

let app: TestApp
let doc: ApiDocument
let internalDoc: ApiDocument
let problemTypes: Map<string, ProblemTypeView>

beforeAll(async () => {
  app = await buildTestApp()
  doc = (await app.inject({ url: '/openapi.json' })).json()
  internalDoc = await internalDocument(app)
  const listed: ProblemTypeView[] = (await app.inject({ url: '/problems', headers: { accept: 'application/json' } })).json()
  problemTypes = new Map(listed.map((t) => [t.type, t]))
})
afterAll(() => app.close())

/** What is wrong with one operation's naming and documentation, as readable lines. */
function faultsOf(at: string, op: Operation): string[] {
  const faults: string[] = []
  if (!OPERATION_ID.test(op.operationId ?? '')) faults.push(`${at}: operationId ${JSON.stringify(op.operationId)} is not camelCase`)
  const summary = op.summary ?? ''
  if (!/\S/.test(summary) || summary.includes('\n') || summary.length > SUMMARY_MAX || summary.endsWith('.')) {
    faults.push(`${at}: summary ${JSON.stringify(op.summary)} is not one line of at most ${SUMMARY_MAX} characters without a trailing period`)
  }
  if (!/\S/.test(op.description ?? '')) faults.push(`${at}: no description`)
  const tags = at.includes(' /internal/') ? INTERNAL_TAGS : TAGS
  if (op.tags?.length !== 1 || !tags.includes(op.tags[0]!)) faults.push(`${at}: tags ${JSON.stringify(op.tags)} are not exactly one of ${tags.join(', ')}`)
  return faults
}

test('every operation has a unique camelCase operationId, a one-line summary, a description and one known tag', () => {
  const faults: string[] = []
  const firstWithId = new Map<string, string>()
  // Both documents: an operation id is unique over the two (one client may call both).
  for (const { at, op } of operations()) {
    faults.push(...faultsOf(at, op))
    const earlier = op.operationId === undefined ? undefined : firstWithId.get(op.operationId)
    if (earlier) faults.push(`${at}: operationId ${op.operationId} is also ${earlier}'s`)
    else if (op.operationId !== undefined) firstWithId.set(op.operationId, at)
  }
  expect(faults).toEqual([])
  // The whole API is documented (a document that lost its operations would pass the loop above).
  expect(firstWithId.size).toBeGreaterThan(100)
})

test('the documents name a server that holds behind any host, and describe each tag', () => {
  for (const [d, tags] of [[doc, TAGS], [internalDoc, INTERNAL_TAGS]] as const) {
    expect(d.servers).toEqual([expect.objectContaining({ url: '/' })])
    expect(d.tags?.map((t) => t.name)).toEqual(tags)
    for (const tag of d.tags ?? []) expect(tag.description, tag.name).toMatch(/\S/)
  }
})

test('the public document holds no route only services call: those are in the internal one, each refusing a player (403) and no token (401)', () => {
  const publicOps = operations(doc).map((o) => o.at)
  expect(publicOps.filter((at) => at.includes(' /internal/'))).toEqual([])
  // No public operation is one every player is refused.
  const serviceOnly = operations(doc).filter(({ op }) => op.tags?.includes('service') || op.responses?.['403']?.description?.includes('/problems/service-only'))
  expect(serviceOnly.map((o) => o.at)).toEqual([])
  expect(publicOps.length).toBeGreaterThan(100)
  const internal = operations(internalDoc)
  expect(internal.map((o) => o.at).sort()).toEqual([...INTERNAL_OPERATIONS].sort())
  for (const { at, op } of internal) {
    expect(op.responses?.['401']?.description, at).toContain('/problems/unauthorized')
    expect(op.responses?.['403']?.description, at).toContain('/problems/service-only')
  }
})

/** Every operation of a document (both, by default) with where it is. */
function operations(...of: ApiDocument[]): { at: string; op: Operation }[] {
  return (of.length > 0 ? of : [doc, internalDoc]).flatMap((d) => Object.entries(d.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([method]) => METHODS.has(method)).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, op }))))
}

test('every error status of every operation lists its problem types, each of that status, with an example body', () => {
  const faults: string[] = []
  let listed = 0
  for (const { at, op } of operations()) {
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      if (Number(status) < 400) continue
      const examples = Object.values(response.content?.['application/problem+json']?.examples ?? {})
      if (examples.length === 0) faults.push(`${at} ${status}: no problem type listed`)
      for (const { value } of examples) {
        listed++
        const known = problemTypes.get(value.type)
        if (!known) faults.push(`${at} ${status}: ${value.type} is not a documented problem type`)
        else if (known.status !== Number(status) || value.status !== known.status || value.title !== known.title) {
          faults.push(`${at} ${status}: the example of ${value.type} is not its ${known.status} ${known.title}`)
        }
        if (!response.description?.includes(value.type)) faults.push(`${at} ${status}: the description does not name ${value.type}`)
      }
    }
    // A refusal the description names is one the operation declares.
    for (const [, slug] of (op.description ?? '').matchAll(/`([a-z]+(?:-[a-z]+)*)`/g)) {
      const known = problemTypes.get(`/problems/${slug}`)
      if (known && !known.statusVaries && !op.responses?.[String(known.status)]) faults.push(`${at}: names \`${slug}\` but declares no ${known.status}`)
    }
  }
  expect(faults).toEqual([])
  expect(listed).toBeGreaterThan(300)
})

/** What a browser asks for when it follows a link. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

test('each problem type is documented at its URI: JSON, a page for a browser; an unknown one is 404', async () => {
  expect(problemTypes.size).toBeGreaterThan(80)
  for (const [uri, t] of problemTypes) {
    expect(t.title, uri).toMatch(/\S/)
    expect(t.description, uri).toMatch(/\S/)
    expect(t.status, uri).toBeGreaterThanOrEqual(400)
  }
  const page = await app.inject({ url: '/problems/insufficient-funds', headers: { accept: BROWSER_ACCEPT } })
  expect(page.statusCode).toBe(200)
  expect(page.headers['content-type']).toMatch(/^text\/html/)
  expect(page.body).toContain('<h1>Insufficient funds</h1>')
  expect(page.body).toContain('/problems/insufficient-funds')
  for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
    const json = await app.inject({ url: '/problems/insufficient-funds', headers: accept === undefined ? {} : { accept } })
    expect(json.headers['content-type'], String(accept)).toMatch(/^application\/json/)
    expect(json.json()).toEqual(problemTypes.get('/problems/insufficient-funds'))
  }
  const all = await app.inject({ url: '/problems' })
  expect(all.headers['content-type']).toMatch(/^application\/json/)
  expect(all.json()).toHaveLength(problemTypes.size)
  // The document says both, and which is which.
  for (const path of ['/problems', '/problems/{slug}']) {
    expect(Object.keys(doc.paths[path]!.get!.responses?.['200']?.content ?? {}), path).toEqual(['application/json', 'text/html'])
  }
  const index = await app.inject({ url: '/problems', headers: { accept: BROWSER_ACCEPT } })
  expect(index.headers['content-type']).toMatch(/^text\/html/)
  for (const uri of problemTypes.keys()) expect(index.body).toContain(`href="${uri}"`)
  const unknown = await app.inject({ url: '/problems/no-such-type' })
  expect(unknown.statusCode).toBe(404)
  expect(unknown.json()).toMatchObject({ type: '/problems/not-found', status: 404 })
})

test('a refusal carries its type\'s title, the same for every occurrence', async () => {
  const player = await newPlayer(app)
  const spend = await app.inject({ method: 'POST', url: `/api/v1/avatars/${player.avatarId}/money/spend`, headers: player.auth, payload: { amount: 1_000_000 } })
  expect(spend.statusCode).toBe(400)
  expect(spend.json()).toMatchObject({ type: '/problems/insufficient-funds', title: 'Insufficient funds', status: 400 })
  const unauthenticated = await app.inject({ url: `/api/v1/avatars/${player.avatarId}` })
  expect(unauthenticated.json()).toMatchObject({ type: '/problems/unauthorized', title: problemTypes.get('/problems/unauthorized')!.title })
})

test('every request body has an example that its schema accepts', () => {
  // Read as the server reads a body: nothing coerced, formats checked. Each component schema is known
  // by its place in the document, so a body schema's `$ref: '#/components/schemas/…'` resolves to it.
  // `nullable` is OpenAPI 3.0's, which ajv knows; `example` is OpenAPI's annotation (a body schema
  // reused inside another keeps its example there).
  const ajv = addFormats(new Ajv({ allErrors: true })).addFormat('uuid', UUID).addKeyword('example')
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) ajv.addSchema(schema, `#/components/schemas/${name}`)
  const faults: string[] = []
  let checked = 0
  for (const { at, op } of operations()) {
    for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
      if (!JSON_MEDIA_TYPE.test(type)) continue
      const examples = [...(media.example === undefined ? [] : [media.example]), ...Object.values(media.examples ?? {}).map((e) => e.value)]
      if (examples.length === 0) faults.push(`${at} ${type}: no example`)
      const validate = ajv.compile(media.schema ?? {})
      for (const example of examples) {
        checked++
        if (!validate(example)) faults.push(`${at} ${type}: the example is refused: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`)
      }
    }
  }
  expect(faults).toEqual([])
  // Every body was checked (a document that lost its request bodies would pass the loop above).
  expect(checked).toBeGreaterThan(50)
})
