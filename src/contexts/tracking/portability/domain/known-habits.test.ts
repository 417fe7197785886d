import { expect, test } from 'vitest'
import type { Recurrence } from '../../../../platform/time/index.js'
import { matchKnownHabits } from './known-habits.js'

const plan = (title: string, recurrence: Recurrence) => ({ template: { title, description: '', tags: [], recurrence } })
const daily: Recurrence = { type: 'DAILY' }

test("a file's habit is one the avatar has when title and schedule are the same; each of the avatar's stands for one", () => {
  const known = [
    { id: 'k1', title: 'Run', recurrence: daily },
    { id: 'k2', title: 'Plants', recurrence: { type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '2026-01-01' } as Recurrence },
    { id: 'k3', title: 'Gym', recurrence: { type: 'TIMES_PER_WEEK', timesPerWeek: 3 } as Recurrence },
  ]
  expect(matchKnownHabits([
    plan('Run', daily),
    // A second Run in the file: the avatar has one, so this one is made.
    plan('Run', daily),
    // The anchor of an every-n-days habit may move between exports.
    plan('Plants', { type: 'EVERY_N_DAYS', everyNDays: 3, anchor: '2026-02-14' }),
    plan('Gym', { type: 'TIMES_PER_WEEK', timesPerWeek: 2 }),
    plan('run', daily),
  ], known).map((h) => h?.id)).toEqual(['k1', undefined, 'k2', undefined, undefined])
})
