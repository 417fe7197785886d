/**
 * Asks `probe` until it answers something other than undefined, and answers that; throws, naming
 * `what`, when it has not within `withinMs`. For a value the test goes on with: to wait for a
 * condition alone, `expect.poll` says more when it fails.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, { withinMs = 5_000, everyMs = 50 } = {}): Promise<T> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`not within ${withinMs / 1000} s: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
