import { createServer } from 'node:http'
import { randomUUID } from 'node:crypto'
import { expect, test } from 'vitest'
import { httpTrackingClient } from './client.js'
import { UNLINK_MAX_HABITS } from './domain/rules.js'

test('the HTTP port unlinks a long list in requests the route accepts, every id once', async ({ onTestFinished }) => {
  const bodies: { questId: string; habitIds: string[] }[] = []
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => {
      bodies.push(JSON.parse(text))
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
  const tracking = httpTrackingClient(`http://127.0.0.1:${(server.address() as { port: number }).port}`, async () => 'token')

  const ids = Array.from({ length: 2 * UNLINK_MAX_HABITS + 7 }, () => randomUUID())
  await tracking.unlinkFromQuest('quest-1', ids)
  expect(bodies.map((b) => b.habitIds.length)).toEqual([UNLINK_MAX_HABITS, UNLINK_MAX_HABITS, 7])
  expect(bodies.flatMap((b) => b.habitIds)).toEqual(ids)
  expect(bodies.every((b) => b.questId === 'quest-1')).toBe(true)
})
