import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { expect, test } from 'vitest'
import { freePort } from './free-port.js'

test('a free port is below the ephemeral range, where outgoing connections cannot take it, and can be listened on', async () => {
  const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
  for (let i = 0; i < 20; i++) {
    const port = await freePort()
    expect(port).toBeGreaterThanOrEqual(20_000)
    expect(port).toBeLessThan(ephemeralStart)
    const server = createServer()
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve))
    await new Promise((r) => server.close(r))
  }
})

test('ports picked one after another, none listened on yet, are all different; one in use is passed over', async () => {
  const held = createServer()
  const first = await freePort()
  await new Promise<void>((resolve, reject) => held.once('error', reject).listen(first + 1, '127.0.0.1', resolve))
  try {
    const picked = [first]
    for (let i = 0; i < 1_000; i++) picked.push(await freePort())
    expect(new Set(picked).size).toBe(picked.length)
    expect(picked).not.toContain(first + 1)
  } finally {
    await new Promise((r) => held.close(r))
  }
})
