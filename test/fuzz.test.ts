/**
 * A property-based fuzz of every operation in /openapi.json. For each operation,
 * fast-check builds requests from its documented schemas: a valid request (real ids in the path,
 * so requests reach validation and rules; every required field and some optional ones; values
 * biased to their bounds and to awkward but legal text) with one change, now and then none or
 * several. A change is any of: a path, query or header parameter beyond its bounds, oddly escaped,
 * hostile or missing; a body field at any depth beyond its bounds (integers past 2^31 and 2^53,
 * 1e20, 1e400, -0, fractions, exponents), of a wrong type, hostile (NUL, lone surrogates, combining
 * marks, bidi overrides, 10,000 characters) or missing; unknown and duplicate keys, deep nesting,
 * a body that is no object, malformed, too large, absent or of another content type; a body on a
 * route that takes none (GET bodies alike); another token or none. Every possible change, and
 * each edge value of every parameter and field, is tried once before the random runs.
 *
 * Properties: never a 5xx; every 4xx is problem+json with one title per type, and a 400 names the
 * fields at fault (`errors[].path` under body, querystring, params or headers) unless a game rule
 * refused a well-formed request; a body the document refuses is never accepted; a refused request
 * that is not a GET changes nothing (state read through the API before and after); a wrong method
 * on every known path is 405 with Allow, body or not; afterwards every process is healthy.
 *
 * Reproducing: a failure prints the operation, QL_FUZZ_SEED and fast-check's seed and path.
 * QL_FUZZ_SEED (default below) and QL_FUZZ_RUNS (random runs per operation) change the run;
 * QL_FUZZ_ONLY="POST /api/v1/habits" runs one operation, with QL_FUZZ_PATH replaying one
 * counterexample of it; QL_FUZZ_STATS=1 prints how each operation answered.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { problemTypeSlug } from '../src/platform/http/problem-types.js'
import { PROBLEM_TYPES } from '../src/server.js'
import { buildTestApp, type TestApp } from './support/app.js'
import { inviteTo, joinGuild, newGuild } from './support/guilds.js'
import { newHabit } from './support/habits.js'
import { giveItem, marketplaceOf } from './support/marketplaces.js'
import {
  ABSENT, applyTwists, edgeTextOf, encodeText, faultsOf, ODD_BODIES, ODD_URL_TEXT, queryFaultOf, queryTextOf, twist, toJson, validatorOf, validValue,
  type Schema, type Twist, type ValueOptions,
} from './support/openapi-arbitraries.js'
import { newPlayer, type Player } from './support/players.js'
import type { SplitTestApp } from './support/split-app.js'

const SEED = Number(process.env.QL_FUZZ_SEED ?? 20261125)
const RUNS = Number(process.env.QL_FUZZ_RUNS ?? 10)
const ONLY = process.env.QL_FUZZ_ONLY
const REPLAY_PATH = process.env.QL_FUZZ_PATH

interface Param { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }
interface Operation { key: string; method: string; path: string; params: Param[]; body?: Schema }
type DocOperation = { parameters?: Param[]; requestBody?: { content?: Record<string, { schema: Schema }> }; responses?: Record<string, { content?: Record<string, unknown> }> }

let app: TestApp
let doc: { paths: Record<string, Record<string, DocOperation>> }
let operations: Operation[] = []
let a: Player, b: Player, c: Player
const ids = { habit: '', marketplace: '', guild: '', invite: '', quest: '', battle: '' }
const SWORD = 'Fuzz Sword'
const SHOP_ITEM = 'Rusty Shortsword'

beforeAll(async () => {
  app = await buildTestApp()
  ;[a, b, c] = [await newPlayer(app, 'Fuzz Hero'), await newPlayer(app, 'Fuzz Friend'), await newPlayer(app, 'Fuzz Guest')]
  ids.habit = await newHabit(app, a)
  ids.marketplace = await marketplaceOf(app, a)
  await giveItem(app, a, { type: 'WEAPON', name: SWORD, description: 'sharp', power: 5 })
  ids.guild = await newGuild(app, a)
  await joinGuild(app, ids.guild, a, b)
  ids.invite = await inviteTo(app, ids.guild, a, c)
  const quest = await app.inject({
    method: 'POST', url: '/api/v1/quests', headers: a.auth,
    payload: { name: 'Fuzz Quest', habits: [{ habitId: 'stretch', title: 'Stretch', recurrence: { type: 'DAILY' } }] },
  })
  expect(quest.statusCode, quest.body).toBe(200)
  ids.quest = quest.json().id
  const battle = await app.inject({ method: 'POST', url: '/api/v1/battles', headers: a.auth, payload: { guildId: ids.guild, bossType: 'GOBLIN', requesterId: a.avatarId } })
  expect(battle.statusCode, battle.body).toBe(200)
  ids.battle = battle.json().id
  await app.settle()

  doc = (await app.inject({ url: '/openapi.json' })).json()
  // A stream answers an accepted request with a response that never ends: its refusals are tested
  // in stream.test.ts, over a socket.
  const streams = (op: DocOperation) => Object.values(op.responses ?? {}).some((r) => r.content?.['text/event-stream'])
  operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).filter(([, op]) => !streams(op)).map(([method, op]) => ({
    key: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    params: op.parameters ?? [],
    ...(op.requestBody?.content?.['application/json'] ? { body: op.requestBody.content['application/json'].schema } : {}),
  })))
})
afterAll(() => app?.close())

// ---- what the fuzz knows about the fixture ----

/** Real values for path parameters, so requests reach rules and not only the router. */
function pathValues(op: Operation, name: string): string[] {
  if (name === 'id') {
    const byPrefix: [string, string][] = [
      ['/api/v1/avatars/', a.avatarId], ['/api/v1/habits/', ids.habit], ['/api/v1/guilds/', ids.guild], ['/api/v1/battles/', ids.battle],
      ['/api/v1/quests/', ids.quest],
    ]
    return [byPrefix.find(([p]) => op.path.startsWith(p))?.[1] ?? a.avatarId]
  }
  const byName: Record<string, string[]> = {
    marketplaceId: [ids.marketplace], itemName: [SHOP_ITEM, SWORD], inviteId: [ids.invite], memberId: [b.avatarId, a.avatarId],
    guildId: [ids.guild], turn: ['1'], avatarId: [a.avatarId],
  }
  return byName[name] ?? []
}

/** Real or meaningful values for body and query fields, by name (used when the schema accepts them). */
function knownValues(): Record<string, unknown[]> {
  const today = app.clock.now().toISOString().slice(0, 19)
  return {
    avatarId: [a.avatarId, b.avatarId], requestorId: [a.avatarId], requesterId: [a.avatarId], creatorAvatarId: [a.avatarId],
    attackerAvatarId: [a.avatarId], ownerAvatarId: [a.avatarId], targetAvatarId: [c.avatarId, b.avatarId], memberId: [a.avatarId, b.avatarId],
    ownerId: [a.userId], guildId: [ids.guild], questId: [ids.quest], habitIds: [[ids.habit]], habitId: ['stretch'],
    name: [SWORD, SHOP_ITEM, 'Fuzz Hero'], title: ['Stretch'], email: [a.email], password: [a.password], token: [a.token],
    date: [today, `${today}.123`, '2020-02-29T23:59:59', '2026-13-01T00:00:00', '2026-03-29T02:30:00'],
    duration: ['P7D', 'PT12H', 'P1M2D', 'PT1.5H', 'P1Y', 'P366D', 'PT0S', 'P1.5D'],
    timeZone: ['UTC', 'Europe/Paris', 'America/St_Johns', 'Etc/GMT-14', 'Asia/Kathmandu', 'Mars/Olympus', 'utc'],
    nickname: ['Sidekick', ' Sidekick '], creatorNickname: ['Chief'], dayOfMonth: [31, 29, 1],
  }
}

// ---- requests ----

type AuthKind = 'player' | 'none' | 'garbage' | 'other player'

interface FuzzRequest {
  method: string
  url: string
  auth: AuthKind
  headers: Record<string, string>
  payload?: string
  /** The body parses as JSON and the document's schema refuses it: the server must not accept it. */
  documentedInvalid: boolean
}

const UNKNOWN_QUERY = ['extra', 'limit', 'cursor', '__proto__', 'constructor', '', 'a[b]', '%00', encodeText('😀')]
const ODD_QUERY = ['%', '%zz', '&', '=', '&&=&', 'a', 'a=%ED%A0%80', 'limit[]=1', '%FF=1', 'x=%E0%A4%A', `x=${'a'.repeat(5000)}`]
const ODD_IDEMPOTENCY_KEYS = ['', ' ', 'x'.repeat(201), 'a b', '\u00e9', 'k\tk', 'a,b', 'fuzz-replay']
const CONTENT_TYPES = [
  'application/json; charset=utf-8', 'application/json; charset=iso-8859-1', 'text/plain', 'application/x-www-form-urlencoded',
  'application/merge-patch+json', 'APPLICATION/JSON', 'application/json;', '',
]

const isJson = (contentType: string | undefined) => contentType !== undefined && /^application\/json\s*(;\s*charset=utf-8)?$/i.test(contentType)

function documentedInvalid(op: Operation, payload: string | undefined, contentType: string | undefined): boolean {
  if (!op.body || payload === undefined || !isJson(contentType)) return false
  let parsed: unknown
  try {
    parsed = JSON.parse(payload)
  } catch {
    return false
  }
  return !validatorOf(op.body)(parsed)
}

/** One thing a generated request does differently from a valid one. */
type Change =
  | { kind: 'path'; name: string; text: string }
  | { kind: 'query'; name: string; text: string | typeof ABSENT }
  | { kind: 'query-extra'; text: string }
  | { kind: 'header'; name: string; text: string }
  | { kind: 'body'; at: string; value: unknown }
  | { kind: 'twist'; twists: Twist[] }
  | { kind: 'raw-body'; text: string | undefined }
  | { kind: 'content-type'; text: string }
  | { kind: 'auth'; auth: AuthKind }

interface Shape { path: Record<string, string>; query: [string, string][]; headers: Record<string, string>; body: unknown }

/**
 * What can be wrong with a request to `op`, each a generator of one such change: every path,
 * query and header parameter (beyond its bounds, odd escapes, hostile text, missing), every body
 * field at any depth (beyond its bounds, wrong types, hostile text, missing), the body as a whole
 * (unknown and duplicate keys, deep nesting, not an object, malformed, too large, absent, another
 * content type), a body on a route that takes none (GET bodies alike), and the token.
 */
function changesOf(op: Operation, o: ValueOptions): { any: fc.Arbitrary<Change>[]; edges: fc.Arbitrary<Change>[] } {
  const params = (where: Param['in']) => op.params.filter((p) => p.in === where)
  const any: fc.Arbitrary<Change>[] = []
  const edges: fc.Arbitrary<Change>[] = []
  for (const p of params('path')) {
    const at = (text: string): Change => ({ kind: 'path', name: p.name, text })
    any.push(fc.oneof(queryFaultOf(p.schema), fc.constantFrom(...ODD_URL_TEXT)).map(at))
    edges.push(...edgeTextOf(p.schema).map((t) => fc.constant(at(t))))
  }
  for (const p of params('query')) {
    const at = (text: string | typeof ABSENT): Change => ({ kind: 'query', name: p.name, text })
    any.push((p.required ? fc.oneof(queryFaultOf(p.schema), fc.constant(ABSENT)) : queryFaultOf(p.schema)).map(at))
    edges.push(...edgeTextOf(p.schema).map((t) => fc.constant(at(t))))
  }
  any.push(fc.oneof(
    fc.tuple(fc.constantFrom(...UNKNOWN_QUERY, ...params('query').map((p) => p.name)), queryFaultOf({ type: 'string' })).map(([k, v]) => `${k}=${v}`),
    fc.constantFrom(...ODD_QUERY),
  ).map((text) => ({ kind: 'query-extra', text })))
  for (const p of params('header')) any.push(fc.constantFrom(...ODD_IDEMPOTENCY_KEYS).map((text) => ({ kind: 'header', name: p.name, text })))
  if (op.body) {
    for (const f of faultsOf(op.body, o)) {
      const at = (value: unknown): Change => ({ kind: 'body', at: f.at, value })
      any.push(f.value.map(at))
      edges.push(...f.edges.map((e) => e.map(at)))
    }
    any.push(fc.array(twist(), { minLength: 1, maxLength: 2 }).map((twists) => ({ kind: 'twist', twists })))
    any.push(fc.oneof(fc.constantFrom(...ODD_BODIES), fc.constant(undefined)).map((text) => ({ kind: 'raw-body', text })))
    any.push(fc.constantFrom(...CONTENT_TYPES).map((text) => ({ kind: 'content-type', text })))
  } else {
    // The avatar search reads criteria from a GET body; every other route must ignore one.
    const criteria: Schema = { type: 'object', properties: Object.fromEntries(params('query').map((p) => [p.name, p.schema])) }
    const faults = faultsOf(criteria, o)
    const body = (v: unknown): Change => ({ kind: 'raw-body', text: toJson(v) })
    any.push(fc.oneof(validValue(criteria, o), ...faults.map((f) => f.value)).map(body))
    any.push(fc.oneof(fc.constantFrom(...ODD_BODIES), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))).map((text) => ({ kind: 'raw-body', text })))
    if (op.method === 'GET') edges.push(...faults.flatMap((f) => f.edges).map((e) => e.map(body)))
  }
  any.push(fc.constantFrom<AuthKind>('none', 'garbage', 'other player').map((auth) => ({ kind: 'auth', auth })))
  return { any, edges }
}

/** A valid request to `op`: real ids in the path, every required and some optional fields. */
function shapeOf(op: Operation, o: ValueOptions): fc.Arbitrary<Shape> {
  const params = (where: Param['in']) => op.params.filter((p) => p.in === where)
  const path = fc.tuple(...params('path').map((p) => {
    const known = pathValues(op, p.name).map(encodeText)
    return fc.tuple(fc.constant(p.name), known.length
      ? fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: queryTextOf(p.schema, o, p.name) })
      : queryTextOf(p.schema, o, p.name))
  })).map((pairs) => Object.fromEntries(pairs))
  const query = fc.tuple(...params('query').map((p) => fc.tuple(
    fc.constant(p.name),
    p.required ? fc.constant(true) : fc.boolean(),
    queryTextOf(p.schema, o, p.name),
  ))).map((pairs) => pairs.filter(([, present]) => present).map(([k, , v]): [string, string] => [k, v]))
  const headers = fc.tuple(...params('header').map((p) => fc.tuple(fc.constant(p.name), fc.option(fc.uuid(), { freq: 2 }))))
    .map((pairs) => Object.fromEntries(pairs.filter(([, v]) => v !== null)) as Record<string, string>)
  const body = op.body ? validValue(op.body, o) : fc.constant(ABSENT)
  return fc.record({ path, query, headers, body })
}

/** A request built from a valid shape with the changes applied. */
function assemble(op: Operation, shape: Shape, changes: Change[]): FuzzRequest {
  const path = { ...shape.path }
  let query = [...shape.query.map(([k, v]) => `${k}=${v}`)]
  const headers: Record<string, string> = { ...shape.headers }
  let body = shape.body
  let payload: string | undefined
  let raw = false
  let contentType = 'application/json'
  let auth: AuthKind = 'player'
  for (const c of changes) {
    if (c.kind === 'path') path[c.name] = c.text
    else if (c.kind === 'query') query = [...query.filter((q) => !q.startsWith(`${c.name}=`)), ...(c.text === ABSENT ? [] : [`${c.name}=${c.text}`])]
    else if (c.kind === 'query-extra') query.push(c.text)
    else if (c.kind === 'header') headers[c.name] = c.text
    else if (c.kind === 'body') body = c.value
    else if (c.kind === 'twist') body = applyTwists(body, c.twists)
    else if (c.kind === 'raw-body') [raw, payload] = [true, c.text]
    else if (c.kind === 'content-type') contentType = c.text
    else auth = c.auth
  }
  if (!raw) payload = body === ABSENT ? undefined : toJson(body)
  // A well-formed login with wrong credentials counts against the client's address (and, on a
  // shared split cluster, against later suites): well-formed logins use the real ones.
  if (op.key === 'POST /auth/login' && payload !== undefined && isJson(contentType) && isObject(payload) && !documentedInvalid(op, payload, contentType)) {
    payload = JSON.stringify({ email: a.email, password: a.password })
  }
  if (payload !== undefined && contentType !== '') headers['content-type'] = contentType
  const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => path[name] ?? '')
  const req: FuzzRequest = {
    method: op.method, url: query.length ? `${url}?${query.join('&')}` : url, auth, headers,
    ...(payload !== undefined ? { payload } : {}), documentedInvalid: documentedInvalid(op, payload, contentType),
  }
  return Object.assign(req, { [fc.toStringMethod]: () => describeRequest(req) })
}

/**
 * Requests to `op`: mostly one change to a valid request, now and then none (valid, awkward
 * values and all) or several. `examples` come first, whatever the run's count: one request for
 * each possible change, and one for each edge value of each parameter and field.
 */
function requestsOf(op: Operation, o: ValueOptions, seed: number): { arbitrary: fc.Arbitrary<FuzzRequest>; examples: [FuzzRequest][] } {
  const { any, edges } = changesOf(op, o)
  const shape = shapeOf(op, o)
  const arbitrary = fc.tuple(shape, fc.oneof(
    { weight: 1, arbitrary: fc.constant([] as Change[]) },
    { weight: 6, arbitrary: fc.oneof(...any).map((c) => [c]) },
    { weight: 1, arbitrary: fc.array(fc.oneof(...any), { minLength: 2, maxLength: 3 }) },
  )).map(([sh, cs]) => assemble(op, sh, cs))
  const examples = [...any, ...edges].map((change, i) => {
    const [sh, c] = fc.sample(fc.tuple(shape, change), { numRuns: 1, seed: seed + i })[0]!
    return [assemble(op, sh, [c])] as [FuzzRequest]
  })
  return { arbitrary, examples }
}

function isObject(text: string): boolean {
  try {
    const v = JSON.parse(text)
    return v !== null && typeof v === 'object' && !Array.isArray(v)
  } catch {
    return false
  }
}

const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s)
const describeRequest = (r: FuzzRequest) =>
  `${r.method} ${clip(r.url)} auth=${r.auth} headers=${JSON.stringify(r.headers)}${r.payload !== undefined ? ` body=${clip(JSON.stringify(r.payload))}` : ''}`

type Response = Awaited<ReturnType<TestApp['inject']>>

async function send(op: Operation, r: FuzzRequest): Promise<Response> {
  const headers = { ...r.headers }
  if (r.auth === 'garbage') headers.authorization = 'Bearer x.y.z'
  else if (r.auth === 'other player') headers.authorization = b.auth.authorization
  // Logging out revokes the access token it came with: each logout gets a token of its own.
  else if (r.auth === 'player') headers.authorization = op.key === 'POST /auth/logout' ? `Bearer ${await app.issueToken(a.userId, 'player')}` : a.auth.authorization
  return app.inject({ method: r.method as 'GET', url: r.url, headers, ...(r.payload !== undefined ? { payload: r.payload } : {}) })
}

// ---- properties ----

const PROBLEM = /^application\/problem\+json/
const FIELD_PATH = /^(body|querystring|params|headers)(\/|$)/
/** Whether the problem type is a game rule's refusal of a well-formed request, which is about state, not a field. */
const isRule = (type: string) => PROBLEM_TYPES[problemTypeSlug(type) ?? '']?.rule === true

/** The title each problem type was first seen with: one type, one title. */
const titles = new Map<string, string>()

/** What is wrong with an answer, or undefined. */
function fault(r: FuzzRequest, res: Response): string | undefined {
  if (res.statusCode >= 500) return 'a 5xx for a client request'
  if (res.statusCode < 400) return r.documentedInvalid ? 'accepted a body the OpenAPI document refuses' : undefined
  if (!PROBLEM.test(String(res.headers['content-type']))) return `a ${res.statusCode} that is not problem+json (${res.headers['content-type']})`
  let p: { type?: unknown; title?: unknown; status?: unknown; detail?: unknown; errors?: { path?: unknown; message?: unknown }[] }
  try {
    p = JSON.parse(res.body)
  } catch {
    return 'a problem body that is not JSON'
  }
  if (typeof p.type !== 'string' || !p.type.startsWith('/problems/') || typeof p.title !== 'string' || typeof p.detail !== 'string' || p.status !== res.statusCode) {
    return 'a problem without type, title, status (as sent) and detail'
  }
  const title = titles.get(p.type)
  if (title !== undefined && title !== p.title) return `${p.type} titled '${p.title}' here and '${title}' elsewhere`
  titles.set(p.type, p.title)
  // A 400 says what in the request is wrong, unless the request was fine and a game rule refused it.
  const namesFields = Array.isArray(p.errors) && p.errors.length > 0
  if (res.statusCode === 400 && !isRule(p.type) && !namesFields) return 'a 400 that names no field'
  const bad = namesFields ? p.errors!.find((e) => typeof e.path !== 'string' || !FIELD_PATH.test(e.path) || typeof e.message !== 'string') : undefined
  if (bad) return `a field error without a field path: ${JSON.stringify(bad)}`
  if (res.statusCode === 405 && !res.headers.allow) return 'a 405 without Allow'
  return undefined
}

/**
 * The fixture's state as the API shows it: what a refused request must leave as it was. The
 * player's avatar always (rewards, payments and items land there from every context), with
 * what the operation's own context keeps; `undefined` reads it all.
 */
function readsFor(op?: Operation): string[] {
  const avatar = [`/api/v1/avatars/${a.avatarId}`, `/api/v1/avatars/${a.avatarId}/stats`]
  const habits = [`/api/v1/habits?avatarId=${a.avatarId}&limit=200`]
  const guild = [`/api/v1/guilds/${ids.guild}`, `/api/v1/guilds/${ids.guild}/invites`, `/api/v1/battles/${ids.battle}`]
  const quest = [`/api/v1/quests/${ids.quest}`, `/api/v1/quests/${ids.quest}/habits`, `/api/v1/quests/${ids.quest}/participants?limit=200`]
  const market = [`/api/v1/marketplaces/${ids.marketplace}/sold-items?limit=200`]
  const byContext: [RegExp, string[]][] = [
    [/^\/api\/v1\/avatars\/\{id\}\/invites$/, guild], [/^\/api\/v1\/avatars/, [`/api/v1/avatars/${b.avatarId}`]], [/^\/api\/v1\/habits/, habits],
    [/^\/api\/v1\/(guilds|battles)/, guild], [/^\/api\/v1\/quests/, [...quest, ...habits]], [/^\/api\/v1\/marketplaces/, market],
  ]
  if (!op) return [...avatar, `/api/v1/avatars/${b.avatarId}`, ...habits, ...guild, ...quest, ...market]
  return [...avatar, ...(byContext.find(([re]) => re.test(op.path))?.[1] ?? [])]
}

type Snapshot = [url: string, status: number, body: string][]

async function snapshot(op?: Operation): Promise<Snapshot> {
  const reads = readsFor(op)
  const answers = await Promise.all(reads.map((url) => app.inject({ url, headers: a.auth })))
  return answers.map((res, i) => [reads[i]!, res.statusCode, res.body])
}

/** The reads that answer differently now, each with what it answered before. */
const changed = (before: Snapshot, after: Snapshot) => after.flatMap(([url, status, body], i) => {
  const [, was, wasBody] = before[i]!
  return status === was && body === wasBody ? [] : [`${url}: ${was} ${clip(wasBody, 600)}\n  now ${status} ${clip(body, 600)}`]
})

/** The state before the next request: read again once events of a success have been applied. */
let baseline: Snapshot = []
const rebase = async (op?: Operation) => {
  await app.settle()
  baseline = await snapshot(op)
}

/** With QL_FUZZ_STATS set: how each operation answered, to see what the fuzz reaches. */
const stats = new Map<string, Map<string, number>>()
function count(op: Operation, res: Response): void {
  if (!process.env.QL_FUZZ_STATS) return
  const of = stats.get(op.key) ?? new Map<string, number>()
  stats.set(op.key, of)
  const type = res.statusCode >= 400 ? String(/"type":"\/problems\/([^"]+)"/.exec(res.body)?.[1]) : ''
  const k = `${res.statusCode}${type ? ` ${type}` : ''}`
  of.set(k, (of.get(k) ?? 0) + 1)
}

async function exercise(op: Operation, r: FuzzRequest): Promise<void> {
  const res = await send(op, r)
  count(op, res)
  const wrong = fault(r, res)
  if (wrong) {
    // What it did, if anything, is not what the next run (a shrink of this one) is judged against.
    await rebase(op)
    throw new Error(`${wrong}: ${res.statusCode} ${clip(res.body, 800)}`)
  }
  // A success may change state (the next request is judged against what it left); a GET may not,
  // so a refused GET is not read around either.
  if (r.method === 'GET') return
  if (res.statusCode < 400) return rebase(op)
  const after = await snapshot(op)
  const diff = changed(baseline, after)
  baseline = after
  if (diff.length) throw new Error(`a refused request (${res.statusCode} ${clip(res.body, 300)}) changed state:\n${diff.join('\n')}`)
}

/**
 * Reads and harmless writes first; then what deletes or hands over, deepest path first, the
 * player's own avatar, then their account, last: a success there takes the fixture away from what follows.
 */
const RESHAPING = /^(DELETE |POST .*\/(leave|leader)$|PATCH .*\/role$)/
function ordered(ops: Operation[]): Operation[] {
  const rank = (o: Operation) => (o.key === 'DELETE /api/v1/me' ? 3 : o.key === 'DELETE /api/v1/avatars/{id}' ? 2 : RESHAPING.test(o.key) ? 1 : 0)
  return [...ops].sort((x, y) => rank(x) - rank(y) || (rank(x) === 1 ? y.path.split('/').length - x.path.split('/').length : 0))
}

/** A seed of its own for each operation, so one operation reruns alone as it ran with the others. */
function seedOf(op: Operation): number {
  let h = SEED | 0
  for (const ch of op.key) h = Math.imul(h ^ ch.charCodeAt(0), 16777619)
  return h | 0
}

const sweepPaths = () => [...Object.keys(doc.paths), '/healthz', '/readyz', '/openapi.json', '/metrics']
const templateOf = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`)

/** Every method the router takes for a concrete path, as the document says (a static path may also match a parametric one). */
function allowedFor(url: string): string[] {
  const methods = new Set<string>()
  for (const [path, ops] of Object.entries(doc.paths)) if (templateOf(path).test(url)) for (const m of Object.keys(ops)) methods.add(m.toUpperCase())
  if (methods.size === 0) methods.add('GET') // the probes, metrics and the document itself
  if (methods.has('GET')) methods.add('HEAD')
  return [...methods]
}

const fill = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeText(pathValues({ key: '', method: 'GET', path, params: [] }, name)[0] ?? 'x'))

/** fast-check's report (seed, path, counterexample) and the property's own error, which it keeps as the cause. */
const reportOf = (e: unknown) => {
  const err = e as Error & { cause?: unknown }
  return err.cause instanceof Error && !err.message.includes(err.cause.message) ? `${err.message}\nGot: ${err.cause.message}` : err.message
}

describe('a generated fuzz of every operation', () => {
  test('the document lists the operations the fuzz covers', () => {
    expect(operations.length).toBeGreaterThan(100)
  })

  test('a wrong method on every known path is 405 with Allow, with or without a body, and changes nothing', async () => {
    await rebase()
    const bodies = ['{"amount":5}', '{"amount":', JSON.stringify({ pad: 'x'.repeat(70_000) })]
    const failures: string[] = []
    let sent = 0
    for (const path of sweepPaths()) {
      const url = fill(path)
      const allowed = allowedFor(url)
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => !allowed.includes(m))) {
        for (const payload of [undefined, bodies[sent % bodies.length]]) {
          sent++
          const res = await app.inject({
            method: method as 'GET', url, headers: { ...a.auth, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(payload !== undefined ? { payload } : {}),
          })
          const label = `${method} ${url}${payload !== undefined ? ` with ${clip(payload, 20)}` : ''}`
          const allow = String(res.headers.allow ?? '').split(/,\s*/)
          const wrong = fault({ method, url, auth: 'player', headers: {}, documentedInvalid: false }, res)
          if (res.statusCode !== 405) failures.push(`${label}: ${res.statusCode} ${clip(res.body, 200)}`)
          else if (wrong) failures.push(`${label}: ${wrong}`)
          else if (allow.includes(method) || allowed.some((m) => !allow.includes(m))) failures.push(`${label}: Allow ${res.headers.allow}, expected ${allowed.join(', ')}`)
        }
      }
    }
    expect(failures).toEqual([])
    expect(sent).toBeGreaterThan(300)
    expect(changed(baseline, await snapshot())).toEqual([])
  })

  test('every operation: no 5xx, problem+json refusals with field paths, refused requests change nothing', async () => {
    const o: ValueOptions = { known: knownValues() }
    const chosen = ordered(operations).filter((op) => !ONLY || op.key === ONLY)
    expect(chosen.length, `QL_FUZZ_ONLY=${ONLY} names no operation`).toBeGreaterThan(0)
    const failures: string[] = []
    await app.settle()
    for (const op of chosen) {
      const seed = seedOf(op)
      // Every success before has been settled: what the operation's context shows now is its baseline.
      baseline = await snapshot(op)
      try {
        const { arbitrary, examples } = requestsOf(op, o, seed)
        await fc.assert(fc.asyncProperty(arbitrary, (r) => exercise(op, r)), {
          // The examples come first and count as runs: RUNS random ones follow.
          seed, numRuns: examples.length + RUNS, examples, ...(ONLY && REPLAY_PATH ? { path: REPLAY_PATH } : {}),
        })
      } catch (e) {
        failures.push(`${op.key} — reproduce with QL_FUZZ_SEED=${SEED} QL_FUZZ_ONLY='${op.key}' (and QL_FUZZ_PATH from below)\n${reportOf(e)}`)
      }
    }
    if (process.env.QL_FUZZ_STATS) {
      console.log([...stats].map(([k, of]) => `${k}: ${[...of].sort((x, y) => y[1] - x[1]).map(([s, n]) => `${s}×${n}`).join(', ')}`).join('\n'))
    }
    if (failures.length) throw new Error(`${failures.length} operation(s) failed the fuzz:\n\n${failures.join('\n\n')}`)
  }, 300_000)

  test('afterwards every process is healthy and ready', async () => {
    const split = (app as Partial<SplitTestApp>).cluster
    const urls = split
      ? ['edge', 'avatar', 'tracking', 'quest', 'guild', 'marketplace', 'live'].flatMap((ctx) => split.of(ctx).map((p) => p.url))
      : []
    for (const probe of ['/healthz', '/readyz']) {
      const res = await app.inject({ url: probe })
      expect(res.statusCode, `${probe}: ${res.body}`).toBe(200)
      for (const base of urls) expect((await fetch(base + probe)).status, `${base}${probe}`).toBe(200)
    }
  })
})
