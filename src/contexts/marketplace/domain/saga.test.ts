import { describe, expect, test } from 'vitest'
import {
  abandoned, applied, compensated, inDoubt, newSaga, nextCompensation, nextStep, OPEN_STATES, refused, SAGA_STATES, sagaKey, SETTLED_STATES,
  undone, undoRefusalMeans, type Saga,
} from './saga.js'

const at = new Date('2026-03-02T08:00:00Z')
const buy = newSaga({
  id: 's1', kind: 'BUY', marketplaceId: 'm1', avatarId: 'a1', itemName: 'Rusty Shortsword',
  item: { type: 'WEAPON', name: 'Rusty Shortsword', description: '', power: 4 }, price: 30, leaseUntil: at, createdAt: at,
})
const sell: Saga = { ...buy, id: 's2', kind: 'SELL', item: null, price: null }

describe('going forward', () => {
  test('buy spends, then adds; sell takes, then pays', () => {
    expect(nextStep(buy)).toBe('spend')
    expect(nextStep(applied(buy, 'spend'))).toBe('add-item')
    expect(nextStep(applied(applied(buy, 'spend'), 'add-item'))).toBeUndefined()
    expect(nextStep(sell)).toBe('take-item')
    expect(nextStep(applied(sell, 'take-item'))).toBe('earn')
  })

  test('each call of a run has its own key', () => {
    expect(sagaKey('s1', 'spend')).toBe('marketplace-saga/s1/spend')
    expect(sagaKey('s1', 'refund')).not.toBe(sagaKey('s1', 'spend'))
  })

  test('refused before anything was applied: FAILED, nothing to undo', () => {
    const r = refused(buy, 'insufficient-funds')
    expect(r.state).toBe('FAILED')
    expect(nextCompensation(r)).toBeUndefined()
  })
})

describe('compensating', () => {
  test('refused after a step: undo the applied steps, last first', () => {
    const r = refused(applied(buy, 'spend'), 'inventory-full')
    expect(r.state).toBe('COMPENSATING')
    expect(nextCompensation(r)).toEqual({ undo: 'spend' })
    const after = undone(r, 'spend')
    expect(nextCompensation(after)).toBeUndefined()
    expect(compensated(after).state).toBe('COMPENSATED')
  })

  test('a lost answer: first send that step again to learn whether it was applied, then undo', () => {
    const r = inDoubt(applied(buy, 'spend'), 'add-item', 'timed out')
    expect(nextCompensation(r)).toEqual({ redrive: 'add-item' })
    // It was applied: undo it, then the spend.
    const wasApplied = applied(r, 'add-item')
    expect(wasApplied.inDoubt).toBeNull()
    expect(nextCompensation(wasApplied)).toEqual({ undo: 'add-item' })
    expect(nextCompensation(undone(wasApplied, 'add-item'))).toEqual({ undo: 'spend' })
    // Refused when sent again: never applied; only the spend is undone.
    expect(nextCompensation(undone(r, 'add-item'))).toEqual({ undo: 'spend' })
  })

  test('a run abandoned mid-way: the step after the last applied one is in doubt', () => {
    const crashed = applied(sell, 'take-item')
    const taken = abandoned(crashed)
    expect(taken).toMatchObject({ state: 'COMPENSATING', inDoubt: 'earn' })
    expect(nextCompensation(taken)).toEqual({ redrive: 'earn' })
    const complete = applied(crashed, 'earn')
    expect(abandoned(complete)).toBe(complete)
  })

  test('refusing to give back the goods of the last step means the trade stands; other refusals are retried', () => {
    expect(undoRefusalMeans(buy, 'add-item')).toBe('stands')
    expect(undoRefusalMeans(buy, 'spend')).toBe('retry')
    expect(undoRefusalMeans(sell, 'earn')).toBe('stands')
    expect(undoRefusalMeans(sell, 'take-item')).toBe('retry')
  })
})

test('every saga state is either open (recovered, never pruned) or settled (pruned after the retention period)', () => {
  expect([...OPEN_STATES, ...SETTLED_STATES].sort()).toEqual([...SAGA_STATES].sort())
})
