/**
 * A port for a server that another process will listen on soon. It is picked below the
 * kernel's ephemeral range: the outgoing connections of every process on the machine
 * (to PostgreSQL, NATS, each other) take their local ports from that range, so a port picked
 * there can be taken by a client socket between the pick and the listen (EADDRINUSE).
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

const LOWEST = 20_000
const ATTEMPTS = 50

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const below = ephemeralRangeStart()
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST))
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
