import { describe, expect, it } from 'vitest'
import { AppError } from '../errors.js'
import { attemptsMadeAgain, RACE_LOST, untilWritten } from './retry.js'

describe('untilWritten', () => {
  it('makes an attempt that lost a race again, and counts each time it does', async () => {
    const before = attemptsMadeAgain()
    let tries = 0
    const lostTwice = () => Promise.resolve(++tries <= 2 ? RACE_LOST : 'written')
    await expect(untilWritten('a test aggregate', lostTwice)).resolves.toBe('written')
    expect(tries).toBe(3)
    expect(attemptsMadeAgain() - before).toBe(2)
  })

  it('counts a unique violation (a key answered meanwhile) as a race, not a refusal the game gave', async () => {
    const before = attemptsMadeAgain()
    let tries = 0
    const keyTaken = () => (++tries === 1 ? Promise.reject(Object.assign(new Error('duplicate key'), { code: '23505' })) : Promise.resolve(1))
    await expect(untilWritten('a test aggregate', keyTaken)).resolves.toBe(1)
    const refused = () => Promise.reject(new AppError(400, 'bad', 'Bad', 'refused'))
    await expect(untilWritten('a test aggregate', refused)).rejects.toThrow('refused')
    expect(attemptsMadeAgain() - before).toBe(1)
  })
})
