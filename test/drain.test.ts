/**
 * A process told to stop (SIGTERM) drains: it takes no new connection, finishes the request under
 * way (answered with `connection: close`), ends its streams with a reconnect hint, then closes.
 * In one process, on a real socket; split, the rolling restart of split-faults shows the same.
 */
import { request } from 'node:http'
import { expect, test } from 'vitest'
import { drain } from '../src/platform/http/drain.js'
import { buildTestApp, splitTarget } from './support/app.js'
import { newPlayer } from './support/players.js'
import { openStream } from './support/streams.js'

test.skipIf(splitTarget)('draining: a request under way is answered (connection: close), new connections are refused, streams end with a reconnect hint', async ({ onTestFinished }) => {
  const app = await buildTestApp()
  onTestFinished(() => app.close())
  const base = await app.baseUrl()
  const p = await newPlayer(app)
  const stream = await openStream(`${base}/api/v1/avatars/${p.avatarId}/stream`, p.auth)
  expect(stream.status).toBe(200)

  // An earn under way: half its body sent when the drain begins.
  const body = JSON.stringify({ amount: 5 })
  const arrived = new Promise((resolve) => app.http.server.once('request', resolve))
  const earn = request(`${base}/api/v1/avatars/${p.avatarId}/money/earn`, {
    method: 'POST', headers: { ...p.auth, 'content-type': 'application/json', 'content-length': String(body.length) },
  })
  const answered = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    earn.on('response', (res) => {
      res.resume()
      resolve({ status: res.statusCode ?? 0, connection: res.headers.connection })
    })
    earn.on('error', reject)
  })
  earn.write(body.slice(0, 5))
  await arrived

  const drained = drain(app.http, 10_000)
  const hint = await stream.next((e) => e.event === 'reconnect')
  expect((hint.data as { retryMs: number }).retryMs).toBeGreaterThanOrEqual(1_000)
  await stream.ended
  await expect(fetch(`${base}/healthz`)).rejects.toThrow()

  earn.end(body.slice(5))
  expect(await answered).toEqual({ status: 204, connection: 'close' })
  expect(await drained).toBe(true)
})
