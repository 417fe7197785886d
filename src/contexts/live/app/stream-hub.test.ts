import { afterEach, describe, expect, test } from 'vitest'
import { ManualClock } from '../../../platform/clock.js'
import type { StreamEntry } from '../domain/stream.js'
import { StreamHub, type HistoryReader, type StreamGrant, type StreamSink } from './stream-hub.js'

/** An avatar's history in memory, as the database would hold it. */
class History implements HistoryReader {
  readonly entries: StreamEntry[] = []
  readonly watched: string[][] = []
  async watch(avatarIds: string[]) {
    this.watched.push(avatarIds)
  }
  append(avatarId: string, n: number): StreamEntry[] {
    const added = Array.from({ length: n }, () => {
      const seq = this.entries.filter((e) => e.avatarId === avatarId).length + 1
      const e = { avatarId, seq, type: 'AvatarChanged', occurredAt: '2026-01-01T00:00:00.000Z', payload: { seq } }
      this.entries.push(e)
      return e
    })
    return added
  }
  async after(avatarId: string, seq: number, limit: number) {
    return this.entries.filter((e) => e.avatarId === avatarId && e.seq > seq).slice(0, limit)
  }
  /** How often the hub asked where the streams stand. */
  reads = 0
  async lastSeqs(avatarIds: string[]) {
    this.reads++
    return new Map(avatarIds.map((id) => [id, this.entries.filter((e) => e.avatarId === id).length]))
  }
}

class Sink implements StreamSink {
  text = ''
  ended = false
  constructor(private readonly accepts = true) {}
  write(text: string) {
    this.text += text
    return this.accepts
  }
  end() {
    this.ended = true
  }
  get ids() {
    return [...this.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
  }
}

const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'))
const grant = (avatarId: string, expiresInMs = 3_600_000): StreamGrant => ({ avatarId, userId: 'u', tokenId: `t-${avatarId}`, expiresAtMs: clock.now().getTime() + expiresInMs })
const settle = () => new Promise((r) => setTimeout(r, 20))
let hub: StreamHub | undefined
afterEach(() => hub?.close())

describe('the stream hub', () => {
  test('sends each entry once, in order, also when broadcasts come late, twice or out of order', async () => {
    const history = new History()
    hub = new StreamHub(history, clock, () => false, { heartbeatMs: 60_000, catchUpMs: 60_000, watchRenewMs: 60_000 })
    const sink = new Sink()
    hub.open(grant('a'), 0, sink)
    const [e1, e2, e3, e4] = history.append('a', 4)
    hub.deliver([e1!])
    hub.deliver([e3!, e2!])
    hub.deliver([e1!, e4!])
    await settle()
    expect(sink.ids).toEqual([1, 2, 3, 4])
  })

  test('a broadcast that never comes is caught up from the history by the sweep', async () => {
    const history = new History()
    hub = new StreamHub(history, clock, () => false, { heartbeatMs: 60_000, catchUpMs: 30, watchRenewMs: 60_000 })
    const sink = new Sink()
    hub.open(grant('a'), 0, sink)
    history.append('a', 3)
    await new Promise((r) => setTimeout(r, 120))
    expect(sink.ids).toEqual([1, 2, 3])
  })

  test('the database is read only when an entry may be missing: a gap in the numbers, or a loss the bus reports', async () => {
    const history = new History()
    hub = new StreamHub(history, clock, () => false, { heartbeatMs: 60_000, catchUpMs: 60_000, watchRenewMs: 60_000 })
    const sink = new Sink()
    hub.open(grant('a'), 0, sink)
    await settle()
    const [e1, e2] = history.append('a', 2)
    hub.deliver([e1!])
    hub.deliver([e2!])
    await settle()
    expect(sink.ids).toEqual([1, 2])
    expect(history.reads).toBe(0)
    // Two entries whose broadcasts were lost, then the bus says messages may have been lost.
    history.append('a', 2)
    await settle()
    expect(sink.ids).toEqual([1, 2])
    hub.resync()
    await settle()
    expect(sink.ids).toEqual([1, 2, 3, 4])
    expect(history.reads).toBe(1)
  })

  test('a stream opened after a position replays what followed, then goes on live', async () => {
    const history = new History()
    hub = new StreamHub(history, clock, () => false, { heartbeatMs: 60_000, catchUpMs: 60_000, watchRenewMs: 60_000 })
    history.append('a', 5)
    const sink = new Sink()
    hub.open(grant('a'), 2, sink)
    await settle()
    hub.deliver(history.append('a', 1))
    await settle()
    expect(sink.ids).toEqual([3, 4, 5, 6])
  })

  test('a client that reads too slowly is dropped; the others of the avatar go on', async () => {
    const history = new History()
    hub = new StreamHub(history, clock, () => false, { heartbeatMs: 60_000, catchUpMs: 60_000, watchRenewMs: 60_000 })
    const slow = new Sink(false)
    const fine = new Sink()
    hub.open(grant('a'), 0, slow)
    hub.open(grant('a'), 0, fine)
    hub.deliver(history.append('a', 2))
    await settle()
    expect(slow.ended).toBe(true)
    expect(fine.ids).toEqual([1, 2])
    expect(hub.size).toBe(1)
  })

  test('heartbeats keep a stream open; an expired or revoked token ends it with `expired`', async () => {
    const history = new History()
    const revoked = new Set<string>()
    hub = new StreamHub(history, clock, (g) => revoked.has(g.tokenId), { heartbeatMs: 30, catchUpMs: 60_000, watchRenewMs: 60_000 })
    const expiring = new Sink()
    const revoking = new Sink()
    const staying = new Sink()
    hub.open(grant('a', 1_000), 0, expiring)
    hub.open(grant('b'), 0, revoking)
    hub.open(grant('c'), 0, staying)
    await new Promise((r) => setTimeout(r, 80))
    expect(staying.text).toContain(': keep-alive')
    clock.advance(1_000)
    revoked.add('t-b')
    await new Promise((r) => setTimeout(r, 80))
    for (const s of [expiring, revoking]) {
      expect(s.ended).toBe(true)
      expect(s.text).toContain('event: expired')
    }
    expect(staying.ended).toBe(false)
    expect(hub.size).toBe(1)
  })

  test('closing (the server drains) ends every stream after its last event with a reconnect hint; one opened then ends so at once', async () => {
    const history = new History()
    hub = new StreamHub(history, clock, () => false, { heartbeatMs: 60_000, catchUpMs: 60_000, watchRenewMs: 60_000 })
    const open = new Sink()
    hub.open(grant('a'), 0, open)
    hub.deliver(history.append('a', 1))
    await settle()
    hub.close()
    const late = new Sink()
    hub.open(grant('a'), 1, late)
    for (const s of [open, late]) {
      expect(s.ended).toBe(true)
      // A retry of one to two seconds, and no id: the client's Last-Event-ID stays its last event's.
      expect(s.text).toMatch(/retry: (1\d{3}|2000)\nevent: reconnect\ndata: \{[^\n]*\}\n\n$/)
    }
    expect(open.ids).toEqual([1])
    expect(late.text.startsWith('retry:')).toBe(true)
    expect(hub.size).toBe(0)
  })
})

test('the avatars of open streams are watched again once the renewal period has passed on the clock', async () => {
  const history = new History()
  hub = new StreamHub(history, clock, () => false, { heartbeatMs: 60_000, catchUpMs: 60_000, watchRenewMs: 60_000, watchCheckMs: 20 })
  hub.open(grant('a'), 0, new Sink())
  hub.open(grant('b'), 0, new Sink())
  await new Promise((r) => setTimeout(r, 80))
  const renewals = history.watched.length
  expect(renewals).toBe(1)
  expect(history.watched[0]!.sort()).toEqual(['a', 'b'])
  expect(hub.holds('a') && !hub.holds('c')).toBe(true)
  // The clock set an hour on (a test clock): renewed at the next check.
  clock.advance(3_600_000)
  await new Promise((r) => setTimeout(r, 80))
  expect(history.watched.length).toBe(renewals + 1)
})
