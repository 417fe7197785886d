/**
 * The edge serves the built web app at `/`, and the platform's own paths keep their answers.
 * Runs on a small stand-in build (WEB_DIR), so it needs no Vite build.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildTestApp, type TestApp } from './support/app.js'

const INDEX = '<!doctype html><title>Questline</title><div id="root"></div><script type="module" src="/assets/app-1a2b3c.js"></script>'
const SCRIPT = 'console.log("questline")'.repeat(20)
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

let dir: string
let app: TestApp
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'questline-web-'))
  await mkdir(path.join(dir, 'assets'))
  await writeFile(path.join(dir, 'index.html'), INDEX)
  await writeFile(path.join(dir, 'index.html.gz'), gzipSync(INDEX))
  await writeFile(path.join(dir, 'assets', 'app-1a2b3c.js'), SCRIPT)
  await writeFile(path.join(dir, 'assets', 'app-1a2b3c.js.gz'), gzipSync(SCRIPT))
  app = await buildTestApp({ env: { WEB_DIR: dir } })
})
afterAll(async () => {
  await app?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('the web app', () => {
  test('/ is the app, revalidated on every visit; HEAD too', async () => {
    const res = await app.inject({ url: '/', headers: html })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(res.headers['cache-control']).toBe('no-cache')
    expect(res.body).toBe(INDEX)
    expect((await app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200)
  })

  test('/ to a client that accepts gzip and asks for no particular type (curl --compressed, a probe) is the page, gzipped', async () => {
    const res = await app.inject({ url: '/', headers: { 'accept-encoding': 'gzip' } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(res.rawPayload).toString('utf8')).toBe(INDEX)
  })

  test('the app\'s own routes get index.html when a browser asks for a page', async () => {
    for (const url of ['/habits', '/guild', '/quests?tab=mine', '/some/deep/link']) {
      const res = await app.inject({ url, headers: html })
      expect(res.statusCode, url).toBe(200)
      expect(res.body, url).toBe(INDEX)
      expect(res.headers['cache-control'], url).toBe('no-cache')
    }
  })

  test('hashed assets are cached for good and sent gzipped to clients that accept it', async () => {
    const gz = await app.inject({ url: '/assets/app-1a2b3c.js', headers: { 'accept-encoding': 'gzip, br' } })
    expect(gz.statusCode).toBe(200)
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(gz.headers['content-type']).toMatch(/javascript/)
    expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    const plain = await app.inject({ url: '/assets/app-1a2b3c.js' })
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body).toBe(SCRIPT)
  })

  test('what is not a page request stays a problem: other methods, non-HTML clients, missing assets', async () => {
    const cases: [string, string, Record<string, string>, number][] = [
      ['POST', '/habits', html, 404],
      ['GET', '/habits', { accept: 'application/json' }, 404],
      ['GET', '/assets/missing.js', {}, 404],
      ['POST', '/index.html', html, 405],
    ]
    for (const [method, url, headers, status] of cases) {
      const res = await app.inject({ method: method as 'GET', url, headers })
      expect(res.statusCode, `${method} ${url}`).toBe(status)
      expect(res.headers['content-type'], `${method} ${url}`).toMatch(/^application\/problem\+json/)
    }
  })

  test('the platform\'s paths keep their answers even for a browser', async () => {
    for (const url of ['/api/v1/nothing-here', '/api/v1', '/auth/nothing', '/docs/nothing.js', '/metrics/x', '/healthzz/x']) {
      const res = await app.inject({ url, headers: html })
      if (url === '/healthzz/x') {
        expect(res.body).toBe(INDEX) // only the exact platform paths are reserved
        continue
      }
      expect(res.statusCode, url).toBe(404)
      expect(res.headers['content-type'], url).toMatch(/^application\/problem\+json/)
    }
    expect((await app.inject({ url: '/openapi.json', headers: html })).json().openapi).toMatch(/^3\./)
    expect((await app.inject({ url: '/healthz', headers: html })).json()).toEqual({ status: 'ok' })
    expect((await app.inject({ url: '/docs/', headers: html })).headers['content-type']).toMatch(/^text\/html/)
    const token = await app.inject({ url: '/api/v1/avatars/someone', headers: html })
    expect(token.statusCode).toBe(401)
  })
})

test('without a build the edge serves the API only: / is a problem 404', async () => {
  const bare = await buildTestApp({ env: { WEB_DIR: path.join(tmpdir(), 'questline-no-such-build') } })
  try {
    const res = await bare.inject({ url: '/', headers: html })
    expect(res.statusCode).toBe(404)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect((await bare.inject({ url: '/healthz' })).statusCode).toBe(200)
  } finally {
    await bare.close()
  }
})
