import { describe, expect, it } from 'vitest'
import { Slots } from './slots.js'

describe('Slots', () => {
  it('runs at most its size at once, every task to its end, in the order they came', async () => {
    const slots = new Slots(3)
    let running = 0
    let most = 0
    const started: number[] = []
    const task = (i: number) => slots.run(async () => {
      started.push(i)
      most = Math.max(most, ++running)
      await new Promise((r) => setTimeout(r, 1 + (i % 4)))
      running--
      return i * 2
    })
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => task(i)))
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 2))
    expect(most).toBe(3)
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i))
  })

  it('frees the slot of a task that fails', async () => {
    const slots = new Slots(1)
    await expect(slots.run(() => Promise.reject(new Error('no')))).rejects.toThrow('no')
    await expect(slots.run(() => Promise.resolve('next'))).resolves.toBe('next')
  })
})
