import { performance } from 'node:perf_hooks'
import type { Broadcast } from '../../../platform/events/broadcast.js'

/** The broadcast topic on which a process tells the others that endpoints were made, enabled or deleted. */
const WEBHOOKS_CHANGED_TOPIC = 'live.webhooks-changed'

/**
 * Whether any enabled webhook endpoint exists, as this process knows it: the event path asks it
 * first, so that while nobody has an endpoint an event costs no read at all. The answer is read
 * again after `ttlMs`, and at once when this or another process says endpoints changed (a lost
 * message costs at most `ttlMs`).
 */
export class EndpointDirectory {
  /** Bumped by every change: an answer read before it is stale. */
  private generation = 0
  private known: { any: boolean; generation: number; readAt: number } | undefined
  private reading: { generation: number; answer: Promise<boolean> } | undefined

  constructor(
    private readonly readAny: () => Promise<boolean>,
    private readonly broadcast: Broadcast,
    private readonly ttlMs: number,
  ) {
    broadcast.subscribe(WEBHOOKS_CHANGED_TOPIC, () => this.generation++)
  }

  async anyEnabled(): Promise<boolean> {
    const k = this.known
    if (k && k.generation === this.generation && performance.now() - k.readAt < this.ttlMs) return k.any
    return this.read()
  }

  /** Endpoints were made, enabled or deleted here (call once committed): every process reads again. */
  changed(): void {
    this.generation++
    this.broadcast.publish(WEBHOOKS_CHANGED_TOPIC, {})
  }

  /** One read at a time, shared by whoever asks meanwhile, unless a change came after it began. */
  private read(): Promise<boolean> {
    if (this.reading && this.reading.generation === this.generation) return this.reading.answer
    const generation = this.generation
    const readAt = performance.now()
    const answer = this.readAny().then((any) => {
      if (!this.known || this.known.readAt <= readAt) this.known = { any, generation, readAt }
      return any
    }).finally(() => {
      if (this.reading?.answer === answer) this.reading = undefined
    })
    this.reading = { generation, answer }
    return answer
  }
}
