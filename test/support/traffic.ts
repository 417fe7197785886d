/**
 * Requests sent in bursts while a test breaks something. Every outcome is recorded rather than
 * asserted, since under fault injection a request may fail in any way and only the test knows
 * what each outcome must mean. A request that gets no answer in time is recorded as a hang.
 */

export interface Answer<T> {
  item: T
  /** The HTTP status; 0 when the connection failed; -1 when no answer came in time (a hang). */
  status: number
  body: string
}

interface Burst<T> {
  /** Resolves once `n` requests have their outcome. */
  answered(n: number): Promise<void>
  /** How many have their outcome so far. */
  readonly count: number
  /** Every outcome, in the order of the items, once all are in. */
  done: Promise<Answer<T>[]>
}

const NO_ANSWER = -1
export const CONNECTION_FAILED = 0

/** Sends one request per item, at most `concurrency` at a time. */
export function burst<T>(
  items: readonly T[],
  send: (item: T) => Promise<{ statusCode: number; body: string }>,
  opts: { concurrency: number; answerWithinMs: number },
): Burst<T> {
  const answers: Answer<T>[] = new Array(items.length)
  let count = 0
  const waiters: { n: number; resolve: () => void }[] = []
  const record = (i: number, a: Answer<T>) => {
    answers[i] = a
    count++
    for (const w of waiters.filter((w) => count >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1)
      w.resolve()
    }
  }
  const one = async (item: T): Promise<Answer<T>> => {
    let timer: NodeJS.Timeout | undefined
    const hang = new Promise<Answer<T>>((resolve) => {
      timer = setTimeout(() => resolve({ item, status: NO_ANSWER, body: `no answer within ${opts.answerWithinMs} ms` }), opts.answerWithinMs)
    })
    const sent = send(item).then(
      (res) => ({ item, status: res.statusCode, body: res.body }),
      (e: unknown) => ({ item, status: CONNECTION_FAILED, body: String((e as { cause?: unknown }).cause ?? e) }),
    )
    try {
      return await Promise.race([sent, hang])
    } finally {
      clearTimeout(timer)
    }
  }
  let next = 0
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) record(i, await one(items[i]!))
  }
  const done = Promise.all(Array.from({ length: Math.min(opts.concurrency, items.length) }, worker)).then(() => answers)
  return {
    answered: (n) => {
      const want = Math.min(n, items.length)
      return count >= want ? Promise.resolve() : new Promise((resolve) => waiters.push({ n: want, resolve }))
    },
    get count() {
      return count
    },
    done,
  }
}

/** Runs `fn` over the items, at most `concurrency` at a time; the results in the items' order. */
export async function inParallel<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i]!)
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return results
}
