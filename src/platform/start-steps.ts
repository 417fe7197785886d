/** Helpers of the platform's start (src/server.ts `start()`): its steps timed, some side by side. */

/** Waits for every one of `steps` (none is left running behind a failure), then throws the first failure. */
export async function allSettledOrFirstFailure(steps: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(steps)).find((r) => r.status === 'rejected')
  if (failed) throw failed.reason
}

/** Runs steps, recording each one's milliseconds in `phases` under its name. */
export function phaseTimer(phases: Record<string, number>) {
  return async <T>(name: string, step: () => Promise<T>): Promise<T> => {
    const began = performance.now()
    try {
      return await step()
    } finally {
      phases[name] = Math.round(performance.now() - began)
    }
  }
}
