/**
 * A port for a server that another process will listen on soon. It is picked below the
 * kernel's ephemeral range: the outgoing connections of every process on the machine
 * (to PostgreSQL, NATS, each other) take their local ports from that range, so a port picked
 * there can be taken by a client socket between the pick and the listen (EADDRINUSE).
 *
 * Between the pick and the listen nothing holds the port, so two picks must not agree: a
 * cluster picks all its ports before its first process listens, and the test runner starts
 * clusters while others are starting. Each process walks the range from a random place of its
 * own, never handing out a port twice before it has gone round the whole range; two processes
 * meet only where their walks overlap at the same moment.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

const LOWEST = 20_000
const ATTEMPTS = 50

let cursor: number | undefined

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const below = ephemeralRangeStart()
  const size = below - LOWEST
  cursor ??= Math.floor(Math.random() * size)
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = LOWEST + (cursor++ % size)
    if (await canListen(port, host)) return port
  }
  throw new Error(`no free port between ${LOWEST} and ${below} after ${ATTEMPTS} tries`)
}

function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    if (low > LOWEST + 1_000) return low
  } catch {
    // Not Linux: the IANA ephemeral range starts here.
  }
  return 49_152
}

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, host, () => s.close(() => resolve(true)))
  })
}
