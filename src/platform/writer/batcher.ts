/** What one submitted command came to: its own answer or its own error. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown }

export const succeeded = <R>(value: R): Outcome<R> => ({ ok: true, value })
export const failed = (error: unknown): Outcome<never> => ({ ok: false, error })

interface Waiting<C, R> {
  command: C
  resolve: (value: R) => void
  reject: (error: unknown) => void
}

/** Sizes of the batches applied so far (for /metrics and tests). */
export interface BatchStats {
  batches: number
  commands: number
  largest: number
}

/**
 * Coalesces concurrent work on one key (an aggregate's id). A command for an idle key is applied
 * on the next turn of the event loop, with whatever else arrived for that key in this one; what
 * arrives while a batch is being applied waits and goes together as the next batch, in arrival order. `apply` answers one outcome per command, so each caller gets
 * its own answer and a refused command does not disturb the others; if `apply` itself throws,
 * every command of that batch gets that error.
 */
export class KeyedBatcher<C, R> {
  private readonly queues = new Map<string, Waiting<C, R>[]>()
  /** Keys that became busy in this turn: their first batches start together at its end. */
  private starting: [string, Waiting<C, R>[]][] = []
  readonly stats: BatchStats = { batches: 0, commands: 0, largest: 0 }

  constructor(
    private readonly apply: (key: string, commands: C[]) => Promise<Outcome<R>[]>,
    private readonly maxBatch = 200,
  ) {}

  submit(key: string, command: C): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(key)
      if (queue) {
        queue.push({ command, resolve, reject })
        return
      }
      const fresh = [{ command, resolve, reject }]
      this.queues.set(key, fresh)
      // What arrives in the same turn of the event loop joins the first batch; the first batches
      // of every key of this turn start in one callback, so what they ask of the database in
      // their first steps can go in shared statements (`Coalescer`).
      if (this.starting.push([key, fresh]) > 1) return
      setImmediate(() => {
        const starting = this.starting
        this.starting = []
        for (const [k, queue] of starting) void this.drain(k, queue)
      })
    })
  }

  private async drain(key: string, queue: Waiting<C, R>[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, this.maxBatch)
      this.count(batch.length)
      let outcomes: Outcome<R>[]
      try {
        outcomes = await this.apply(key, batch.map((w) => w.command))
      } catch (e) {
        outcomes = batch.map(() => failed(e))
      }
      batch.forEach((w, i) => {
        const o = outcomes[i] ?? failed(new Error('A batched command got no outcome.'))
        if (o.ok) w.resolve(o.value)
        else w.reject(o.error)
      })
    }
    this.queues.delete(key)
  }

  private count(size: number): void {
    this.stats.batches++
    this.stats.commands += size
    this.stats.largest = Math.max(this.stats.largest, size)
  }
}
