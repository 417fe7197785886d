/**
 * A wrong method on every known path of /openapi.json (and the probes, metrics and the document
 * itself) is 405 with Allow listing the methods the path takes, with or without a body, as
 * problem+json; and it changes nothing (state read through the API before and after).
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

/** Every method the router takes for a concrete path, as the document says (a static path may also match a parametric one). */
function allowedFor(url: string): string[] {
  const methods = new Set<string>()
  for (const [path, ops] of Object.entries(world.paths)) if (templateOf(path).test(url)) for (const m of Object.keys(ops)) methods.add(m.toUpperCase())
  if (methods.size === 0) methods.add('GET') // the probes, metrics and the document itself
  if (methods.has('GET')) methods.add('HEAD')
  return [...methods]
}

const fill = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeText(world.pathValues({ key: '', method: 'GET', path, params: [] }, name)[0] ?? 'x'))

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
