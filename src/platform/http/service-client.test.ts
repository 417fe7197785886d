import { createServer } from 'node:http'
import { expect, test } from 'vitest'
import { freePort } from '../net/free-port.js'
import { ServiceClient } from './service-client.js'

test('a retry after a replica refused the connection goes to another replica, told which one failed and what the call is about', async ({ onTestFinished }) => {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const up = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const down = `http://127.0.0.1:${await freePort()}`
  const asked: [string | undefined, string | undefined][] = []
  // A chooser that would send every first attempt to the replica that is down.
  const client = new ServiceClient((owner, failed) => {
    asked.push([owner, failed])
    return failed === down ? up : down
  }, async () => 'token', { retries: 1, retryDelayMs: 1 })
  expect(await client.call({ method: 'GET', path: '/anything' })).toEqual({ ok: true })
  expect(await client.call({ method: 'GET', path: '/internal/v1/avatars/a-1/owner' })).toEqual({ ok: true })
  // Told the aggregate the call is about, for its owner, and on the retry which replica failed.
  expect(asked).toEqual([[undefined, undefined], [undefined, down], ['a-1', undefined], ['a-1', down]])
})
