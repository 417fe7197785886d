/**
 * The API document as a client generator and a reader take it (issue 19): every operation is named
 * like a client method, summed up in a line, described with its rule and tagged with its context,
 * and the document says where it is served and what each tag holds.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'

/** The tags an operation may carry: one per context, plus `account` (the /me routes) and `service`. */
const TAGS = ['auth', 'account', 'avatars', 'items', 'habits', 'quests', 'guilds', 'battles', 'marketplace', 'inbox', 'stream', 'service']
const OPERATION_ID = /^[a-z][a-zA-Z0-9]+$/
const SUMMARY_MAX = 70
/** The keys of a path item that are operations (the others are parameters, servers, …). */
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

interface Operation {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
}
interface ApiDocument {
  servers?: { url: string; description?: string }[]
  tags?: { name: string; description?: string }[]
  paths: Record<string, Record<string, Operation>>
}

let app: TestApp
let doc: ApiDocument

beforeAll(async () => {
  app = await buildTestApp()
  doc = (await app.inject({ url: '/openapi.json' })).json()
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
  if (op.tags?.length !== 1 || !TAGS.includes(op.tags[0]!)) faults.push(`${at}: tags ${JSON.stringify(op.tags)} are not exactly one of ${TAGS.join(', ')}`)
  return faults
}

test('every operation has a unique camelCase operationId, a one-line summary, a description and one known tag', () => {
  const faults: string[] = []
  const firstWithId = new Map<string, string>()
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue
      const at = `${method.toUpperCase()} ${path}`
      faults.push(...faultsOf(at, op))
      const earlier = op.operationId === undefined ? undefined : firstWithId.get(op.operationId)
      if (earlier) faults.push(`${at}: operationId ${op.operationId} is also ${earlier}'s`)
      else if (op.operationId !== undefined) firstWithId.set(op.operationId, at)
    }
  }
  expect(faults).toEqual([])
  // The whole API is documented (a document that lost its operations would pass the loop above).
  expect(firstWithId.size).toBeGreaterThan(100)
})

test('the document names a server that holds behind any host, and describes each tag', () => {
  expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
  expect(doc.tags?.map((t) => t.name)).toEqual(TAGS)
  for (const tag of doc.tags ?? []) expect(tag.description, tag.name).toMatch(/\S/)
})
