import { expect, test, vi } from 'vitest'
import { Scheduler } from './scheduler.js'

test('the scheduler leaves out a timed run its job says is not due', async () => {
  vi.useFakeTimers()
  try {
    let runs = 0
    let due = false
    const scheduler = new Scheduler([{ name: 'test.job', everyMs: 1_000, due: () => due, run: async () => void runs++ }], undefined)
    scheduler.start()
    await vi.advanceTimersByTimeAsync(3_500)
    expect(runs).toBe(0)
    due = true
    await vi.advanceTimersByTimeAsync(1_000)
    expect(runs).toBe(1)
    // A manual run does not ask.
    due = false
    await scheduler.runNow('test.job')
    expect(runs).toBe(2)
    await scheduler.close()
  } finally {
    vi.useRealTimers()
  }
})
