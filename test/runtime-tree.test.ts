/**
 * The runtime tree (`npm run build:runtime -- DIR`, what the image holds), made once in a temporary
 * directory outside the checkout and served from there as the image serves it:
 * `NODE_ENV=production node dist/questline.js serve`. It holds no build or test tool, serves the
 * whole platform on the embedded database (the smoke of test/support/runtime-smoke.ts), serves one
 * context alone on PostgreSQL (when TEST_DATABASE_URL is set), and nothing it runs writes into it.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { generateSigningJwk } from '../src/platform/auth/keys.js'
import { SYSTEM } from '../src/platform/auth/principal.js'
import { BUILD_ONLY_PACKAGES } from '../scripts/build-runtime.js'
import { createDatabase, databaseUrl, dropDatabase } from './support/backends.js'
import { smokeTest } from './support/runtime-smoke.js'
import { dataPlace, json, startServer, stopServer, type Entry } from './support/serve-process.js'
import { tokensSignedWith } from './support/tokens.js'

const BUILD_TIMEOUT_MS = 120_000
let tree: string
let entry: Entry

beforeAll(async () => {
  tree = await mkdtemp(path.join(tmpdir(), 'questline-runtime-'))
  await promisify(execFile)('npm', ['run', '--silent', 'build:runtime', '--', tree], { timeout: BUILD_TIMEOUT_MS })
  entry = { args: ['dist/questline.js'], cwd: tree }
}, BUILD_TIMEOUT_MS)
afterAll(() => (tree ? rm(tree, { recursive: true, force: true }) : undefined))

/** Every file and directory under the tree, each with its size and modification time. */
async function treeState(): Promise<Map<string, string>> {
  const state = new Map<string, string>()
  for (const item of await readdir(tree, { recursive: true, withFileTypes: true })) {
    const file = path.join(item.parentPath, item.name)
    const { size, mtimeMs } = await lstat(file)
    state.set(path.relative(tree, file), `${size} ${mtimeMs}`)
  }
  return state
}

/** What differs between two states: files added, removed or changed. */
const changed = (before: Map<string, string>, after: Map<string, string>) =>
  [...new Set([...before.keys(), ...after.keys()])].filter((file) => before.get(file) !== after.get(file)).sort()

test('the tree holds the bundle, the web app, the migrations and production packages, and no build or test tool', async () => {
  const files = [...(await treeState()).keys()]
  for (const expected of ['dist/questline.js', 'web/dist/index.html', 'drizzle/meta/_journal.json', 'package-lock.json', 'node_modules/fastify/package.json', 'node_modules/@electric-sql/pglite/package.json']) {
    expect(files, expected).toContain(expected)
  }
  const buildTools = new RegExp(`(^|/)node_modules/(${BUILD_ONLY_PACKAGES.join('|')})$`)
  expect(files.filter((f) => buildTools.test(f))).toEqual([])
  expect(files.filter((f) => /^(src|scripts|bin|web\/src)(\/|$)/.test(f))).toEqual([])
  const manifest = JSON.parse(await readFile(path.join(tree, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  expect(manifest.scripts).toEqual({ start: 'node dist/questline.js serve', migrate: 'node dist/questline.js migrate' })
})

test('served from the tree on the embedded database: register → habit → attend → reward, the web app at /, the docs at /docs; nothing written into the tree', async ({ onTestFinished }) => {
  const place = await dataPlace('runtime')
  onTestFinished(() => place.cleanup())
  const before = await treeState()
  const server = await startServer({ ...place.env, NODE_ENV: 'production' }, [], entry)
  try {
    await smokeTest(server.url)
  } finally {
    await stopServer(server)
  }
  expect(changed(before, await treeState())).toEqual([])
}, 90_000)

test.runIf(process.env.TEST_DATABASE_URL)('one context alone from the tree (--only avatar) on a fresh PostgreSQL database: migrates it, becomes ready, provisions and serves an avatar', async ({ onTestFinished }) => {
  const adminUrl = process.env.TEST_DATABASE_URL!
  const name = `ql_test_runtime_${Date.now().toString(36)}_${process.pid}`
  await createDatabase(adminUrl, name)
  onTestFinished(() => dropDatabase(adminUrl, name))
  const dataDir = await mkdtemp(path.join(tmpdir(), 'questline-runtime-data-'))
  onTestFinished(() => rm(dataDir, { recursive: true, force: true }))
  // The avatar context calls no other: alone, it needs no upstream. It verifies the tokens the test signs with its key.
  const key = JSON.stringify(await generateSigningJwk())
  const before = await treeState()
  const avatarProcess = await startServer({ DATABASE_URL: databaseUrl(adminUrl, name), DATA_DIR: dataDir, JWT_PRIVATE_KEY: key, NODE_ENV: 'production' }, ['--only', 'avatar'], entry)
  try {
    const tokens = await tokensSignedWith(key)
    const service = (await tokens.issue(SYSTEM.userId, 'service')).token
    const ownerId = randomUUID()
    const provisioned = await json(`${avatarProcess.url}/internal/v1/avatars/${ownerId}`, { method: 'PUT', token: service, body: JSON.stringify({ ownerId, name: 'Alone' }) })
    expect(provisioned.status, JSON.stringify(provisioned.body)).toBeLessThan(300)
    const player = (await tokens.issue(ownerId, 'player')).token
    const avatar = await json(`${avatarProcess.url}/api/v1/avatars/${ownerId}`, { token: player })
    expect(avatar, JSON.stringify(avatar.body)).toMatchObject({ status: 200, body: { id: ownerId, name: 'Alone' } })
    // Another context's route: neither served here nor forwarded.
    expect((await json(`${avatarProcess.url}/api/v1/habits?avatarId=${ownerId}`, { token: player })).status).toBe(404)
  } finally {
    await stopServer(avatarProcess)
  }
  expect(changed(before, await treeState())).toEqual([])
}, 90_000)
