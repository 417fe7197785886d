/**
 * A wrong method on every known path of /openapi.json (and the probes, metrics and the document
 * itself) is 405 with Allow listing the methods the path takes, with or without a body, as
 * problem+json; and it changes nothing (state read through the API before and after). A fixed path
 * beside a parameter one (`/battles/bosses` and `/battles/{id}`) takes its own methods only.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { TestApp } from './support/app.js'
import { changed, clip, fault, fuzzWorld, type FuzzWorld } from './support/fuzz-world.js'
import { encodeText } from './support/openapi-wire.js'
import type { Player } from './support/players.js'

let world: FuzzWorld
let app: TestApp
let a: Player
beforeAll(async () => {
  world = await fuzzWorld()
  ;({ app, a } = world)
})
afterAll(() => app?.close())

const sweepPaths = () => [...Object.keys(world.paths), '/healthz', '/readyz', '/openapi.json', '/metrics']
const templateOf = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`)
const isParameter = (segment: string | undefined) => segment?.includes('{') ?? false

/**
 * The document's path a concrete URL belongs to: of the paths it matches, the one with a fixed
 * segment where the others have a parameter, first from the left (`/battles/bosses`, not
 * `/battles/{id}`), as the router prefers.
 */
function ownPath(url: string): string | undefined {
  const bySpecificity = (a: string, b: string) => {
    const [sa, sb] = [a.split('/'), b.split('/')]
    const at = sa.findIndex((seg, i) => isParameter(seg) !== isParameter(sb[i]))
    return at < 0 ? 0 : isParameter(sa[at]) ? 1 : -1
  }
  return Object.keys(world.paths).filter((path) => templateOf(path).test(url)).sort(bySpecificity)[0]
}

/** The methods the URL's own path takes, as the document says: never those of a parameter path beside it. */
function allowedFor(url: string): string[] {
  const own = ownPath(url)
  const methods = new Set(own ? Object.keys(world.paths[own]!).map((m) => m.toUpperCase()) : ['GET']) // the probes, metrics and the document itself
  if (methods.has('GET')) methods.add('HEAD')
  return [...methods]
}

const fill = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeText(world.pathValues({ path }, name)[0] ?? 'x'))

test('a wrong method on every known path is 405 with Allow, with or without a body, and changes nothing', async () => {
  await app.settle()
  const before = await world.snapshot()
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
        const wrong = fault({ documentedInvalid: false }, res)
        if (res.statusCode !== 405) failures.push(`${label}: ${res.statusCode} ${clip(res.body, 200)}`)
        else if (wrong) failures.push(`${label}: ${wrong}`)
        else if (allow.includes(method) || allowed.some((m) => !allow.includes(m))) failures.push(`${label}: Allow ${res.headers.allow}, expected ${allowed.join(', ')}`)
      }
    }
  }
  expect(failures).toEqual([])
  expect(sent).toBeGreaterThan(300)
  expect(changed(before, await world.snapshot())).toEqual([])
})

test('a fixed path beside a parameter path answers a method it lacks with 405 and its own Allow, not with the parameter route', async () => {
  const fixed: [string, string][] = [
    ['/api/v1/battles/bosses', 'GET, HEAD'], ['/api/v1/guilds/leaderboard', 'GET, HEAD'], ['/api/v1/avatars/search', 'GET, HEAD'],
    ['/internal/v1/habits/quest-unlinks', 'POST'],
  ]
  const service = { authorization: `Bearer ${await app.issueToken(a.userId, 'service')}` }
  for (const [url, allow] of fixed) {
    for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS'].filter((m) => !allow.split(', ').includes(m))) {
      // The internal path is asked of the tracking process itself (no gateway forwards it).
      const res = url.startsWith('/internal/')
        ? await app.injectAt('tracking', { method: method as 'GET', url, headers: service })
        : await app.inject({ method: method as 'GET', url, headers: a.auth })
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(405)
      expect(res.headers.allow, `${method} ${url}`).toBe(allow)
    }
  }
  // The parameter route beside each still answers its own paths.
  expect((await app.inject({ url: '/api/v1/battles/7d4a7c1e-6a5e-4c5e-9b1e-1d2c3b4a5f60', headers: a.auth })).statusCode).toBe(404)
  expect((await app.inject({ method: 'DELETE', url: '/api/v1/habits/7d4a7c1e-6a5e-4c5e-9b1e-1d2c3b4a5f60', headers: a.auth })).statusCode).toBe(404)
})
