interface Submitted<I, R> {
  item: I
  resolve: (result: R) => void
  reject: (error: unknown) => void
}

/**
 * When the items of a statement are gathered: `turn`, what is submitted in one turn of the event
 * loop (requests parsed in that turn: each is a callback of its own); `tick`, what is submitted
 * before the current callback's promises settle (work started together in one callback, such as
 * the batches a `KeyedBatcher` starts at once), which adds no wait for another turn.
 */
type Gathering = 'turn' | 'tick'

/**
 * Concurrent work of one kind that reaches one process goes to the database as one statement.
 * What is gathered (see `Gathering`) is sent together when fewer than `maxInFlight` statements
 * are out; past that, items wait and the next statement carries every item submitted meanwhile,
 * in submission order. (Gathering matters on the embedded engine: it answers within the callback
 * that asked, so nothing would wait for anything else.) One statement per batch instead of per request is what lets a busy process
 * do more than one statement per request could: the round trip, the driver's work and the
 * engine's parse-bind-execute are paid once for the batch.
 *
 * A statement never starts before its items were submitted, so it sees every write answered
 * before that. `run` answers one result per item, in order.
 */
export class Coalescer<I, R> {
  private waiting: Submitted<I, R>[] = []
  private inFlight = 0
  private scheduled = false

  constructor(
    private readonly run: (items: I[]) => Promise<R[]>,
    private readonly maxInFlight: number,
    private readonly gathering: Gathering,
    private readonly maxBatch = 500,
  ) {}

  submit(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject })
      if (this.scheduled) return
      this.scheduled = true
      const sendGathered = () => {
        this.scheduled = false
        this.send()
      }
      if (this.gathering === 'turn') setImmediate(sendGathered)
      // A tick queued from a promise's continuation runs once every continuation queued with it has run.
      else process.nextTick(sendGathered)
    })
  }

  private send(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch)
      this.inFlight++
      void this.runBatch(batch).finally(() => {
        this.inFlight--
        this.send()
      })
    }
  }

  /**
   * A statement of several items that fails is tried again item by item, so one item the database
   * refuses (a constraint, a trigger) does not fail the others.
   */
  private async runBatch(batch: Submitted<I, R>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((s) => s.item))
      batch.forEach((s, i) => s.resolve(results[i]!))
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e)
      await Promise.all(batch.map((s) => this.run([s.item]).then(([r]) => s.resolve(r!), s.reject)))
    }
  }
}

/** Reads by key asked by requests, coalesced per turn: each key of a statement asked once, however many wait for it. */
export function coalescedReads<V>(readMany: (keys: string[]) => Promise<Map<string, V>>, maxInFlight: number): (key: string) => Promise<V | undefined> {
  const reads = new Coalescer<string, V | undefined>(async (keys) => {
    const found = await readMany([...new Set(keys)])
    return keys.map((k) => found.get(k))
  }, maxInFlight, 'turn')
  return (key) => reads.submit(key)
}
