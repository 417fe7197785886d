/**
 * Which habits of an import the avatar has already (DESIGN §9.4): importing the same file again
 * makes none of its habits twice. A habit of the file is one the avatar has when their titles and
 * schedules are the same (type and its field; not an EVERY_N_DAYS anchor, which a later export of
 * the same habit may move). Each habit of the avatar stands for one habit of the file, so a file
 * with two habits alike, imported twice, makes two. Pure.
 */
import { recurrenceFields, type Recurrence } from '../../../../platform/time/index.js'
import type { HabitPlan } from './import.js'

/** A habit the avatar has, as the matching reads it. */
export interface KnownHabit {
  id: string
  title: string
  recurrence: Recurrence
}

const keyOf = (title: string, r: Recurrence) => JSON.stringify({ title, ...recurrenceFields(r) })

/** For each plan, in order, the avatar's habit it already is (each matched once, the oldest first), or undefined: a habit to make. */
export function matchKnownHabits(plans: readonly Pick<HabitPlan, 'template'>[], known: readonly KnownHabit[]): (KnownHabit | undefined)[] {
  const unmatched = new Map<string, KnownHabit[]>()
  for (const h of known) {
    const key = keyOf(h.title, h.recurrence)
    unmatched.set(key, [...(unmatched.get(key) ?? []), h])
  }
  return plans.map((plan) => unmatched.get(keyOf(plan.template.title, plan.template.recurrence))?.shift())
}
