/** Runs at most `size` tasks at once; the others wait their turn, first come first served. */
export class Slots {
  private running = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((r) => this.waiting.push(r))
    else this.running++
    try {
      return await task()
    } finally {
      // The slot passes straight to the next in line, so `running` counts it throughout.
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }
}
