import { createServer, type Server } from 'node:http'
import { afterEach, expect, test } from 'vitest'
import { Balancer } from './balancer.js'

const closing: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close()
})

/** A gateway stand-in whose answers carry its own connection headers, as fastify's do. */
async function gateway(): Promise<string> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'keep-alive', 'keep-alive': 'timeout=72', 'x-served-by': 'gateway' })
    res.end(`${req.method} ${req.url}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closing.push(() => new Promise((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

test("an answer goes on with the balancer's keep-alive, not the gateway's: the client never keeps a connection the balancer has closed", async () => {
  const target = await gateway()
  const balancer = await Balancer.start('127.0.0.1', 0, () => [target])
  closing.push(() => balancer.close())

  const res = await fetch(`${balancer.url}/api/v1/x?y=1`)
  expect(await res.text()).toBe('GET /api/v1/x?y=1')
  expect(res.headers.get('x-served-by')).toBe('gateway')
  // Node's server says its own idle timeout (5 s by default), which is what the client must go by.
  expect(res.headers.get('keep-alive')).toBe('timeout=5')
})
