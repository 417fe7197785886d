/**
 * Fire-and-forget messages to every process that listens on a topic: at most once, no storage.
 * For what may be lost because the receiver can read it again from the database (the live
 * stream's "appended" news: a process that misses one catches up from its history table).
 */
export interface Broadcast {
  /** Sends `data` (a JSON value) to every subscriber of `topic`, in this process and in others. */
  publish(topic: string, data: unknown): void
  /**
   * Calls `handler` with each message sent on `topic` from then on (this process's own included),
   * until the answered function is called. Before the bus starts or after.
   */
  subscribe(topic: string, handler: (data: unknown) => void): () => void
  /**
   * Calls `listener` whenever messages may have been lost on the way: this process's connection
   * was interrupted or could not keep up, or another process's was (so what it sent meanwhile may
   * never have arrived). A receiver that can read what it missed reads then, and need not poll.
   */
  onPossibleLoss(listener: () => void): void
}

/** One process: messages go straight to its own subscribers, after the current task; none is ever lost. */
export class LocalBroadcast implements Broadcast {
  private readonly handlers = new Map<string, ((data: unknown) => void)[]>()

  publish(topic: string, data: unknown): void {
    const handlers = this.handlers.get(topic)
    if (!handlers) return
    queueMicrotask(() => {
      for (const handle of handlers) handle(data)
    })
  }

  onPossibleLoss(): void {}

  subscribe(topic: string, handler: (data: unknown) => void): () => void {
    const handlers = this.handlers.get(topic) ?? []
    handlers.push(handler)
    this.handlers.set(topic, handlers)
    const own = (h: (data: unknown) => void) => h === handler
    return () => {
      const left = (this.handlers.get(topic) ?? []).filter((h) => !own(h))
      if (left.length > 0) this.handlers.set(topic, left)
      else this.handlers.delete(topic)
    }
  }
}
