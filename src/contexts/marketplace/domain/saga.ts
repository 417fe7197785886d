/**
 * The buy and sell sagas as pure state: which calls to the avatar a run has made, which are
 * known to have been applied, and what is left to finish or undo. The app layer makes the calls
 * and keeps this record in the saga log; every decision about what comes next is made here.
 */
import type { Item } from './catalog.js'

export type SagaKind = 'BUY' | 'SELL'

/**
 * RUNNING: going forward. DONE: every step applied. FAILED: refused before anything was
 * applied. COMPENSATING: undoing what was applied (by the request, or by the recovery job).
 * COMPENSATED: everything applied has been undone.
 */
export const SAGA_STATES = ['RUNNING', 'COMPENSATING', 'DONE', 'COMPENSATED', 'FAILED'] as const
export type SagaState = (typeof SAGA_STATES)[number]
/** States a saga may be left in by a crash or an unreachable avatar; the recovery job picks them up. */
export const OPEN_STATES = ['RUNNING', 'COMPENSATING'] as const satisfies readonly SagaState[]
/** States a saga never leaves: its log row is kept for the retention period, then deleted. */
export const SETTLED_STATES = ['DONE', 'COMPENSATED', 'FAILED'] as const satisfies readonly SagaState[]

/** A call to the avatar that changes it; each is sent under its own idempotency key. */
export type Step = 'spend' | 'add-item' | 'take-item' | 'earn'
type Undo = 'refund' | 'take-back' | 'return-item' | 'claw-back'

/** Buy: spend the price, then add the item. Sell: take the item, then pay for it (and list it). */
const STEPS: Record<SagaKind, readonly Step[]> = { BUY: ['spend', 'add-item'], SELL: ['take-item', 'earn'] }

/** The call that undoes each step: a refund, taking back the item, returning it, or taking back the pay. */
export const UNDO: Record<Step, Undo> = { 'spend': 'refund', 'add-item': 'take-back', 'take-item': 'return-item', 'earn': 'claw-back' }

export interface Saga {
  id: string
  kind: SagaKind
  marketplaceId: string
  avatarId: string
  itemName: string
  /** Buy: the catalog item. Sell: the item taken from the inventory, once known. */
  item: Item | null
  /** Buy: the catalog price. Sell: what the shop pays, once the item is known. */
  price: number | null
  state: SagaState
  /** Steps known to have been applied, in order. */
  done: Step[]
  /** Steps undone by their compensation, or found never to have been applied. */
  undone: Step[]
  /** A step sent whose answer never came: it may or may not have been applied. */
  inDoubt: Step | null
  /** Why the saga did not simply finish: a problem slug and detail. */
  failure: string | null
  /** How many times the recovery job has taken the saga over. */
  attempts: number
  version: number
  leaseUntil: Date
  createdAt: Date
}

export function newSaga(s: Pick<Saga, 'id' | 'kind' | 'marketplaceId' | 'avatarId' | 'itemName' | 'item' | 'price' | 'leaseUntil' | 'createdAt'>): Saga {
  return { ...s, state: 'RUNNING', done: [], undone: [], inDoubt: null, failure: null, attempts: 0, version: 1 }
}

/** The idempotency key of one call of one run: a retry of that call is applied once. */
export const sagaKey = (sagaId: string, call: Step | Undo): string => `marketplace-saga/${sagaId}/${call}`

/** The next forward step, or undefined when every step is applied. */
export const nextStep = (s: Saga): Step | undefined => STEPS[s.kind].find((step) => !s.done.includes(step))

export const applied = (s: Saga, step: Step): Saga => ({ ...s, done: [...s.done, step], inDoubt: s.inDoubt === step ? null : s.inDoubt })

/** The avatar refused a step, so it was not applied: nothing to undo yet means nothing to do at all. */
export function refused(s: Saga, failure: string): Saga {
  if (s.done.length === 0) return { ...s, state: 'FAILED', failure }
  return { ...s, state: 'COMPENSATING', inDoubt: null, failure }
}

/** A step's answer was lost: undo the run, starting by finding out whether that step was applied. */
export const inDoubt = (s: Saga, step: Step, failure: string): Saga => ({ ...s, state: 'COMPENSATING', inDoubt: step, failure })

/**
 * A RUNNING saga whose lease ran out was abandoned mid-way (a crash): the step after the last
 * one known to be applied may have been sent. With every step applied, it only needs finishing.
 */
export function abandoned(s: Saga): Saga {
  const step = nextStep(s)
  return step ? inDoubt(s, step, s.failure ?? 'interrupted: the run stopped before it finished') : s
}

type Compensation = { redrive: Step } | { undo: Step }

/**
 * What compensation does next: first settle a step in doubt by sending it again under the same
 * key (applied once either way, and now the answer tells), then undo applied steps, last first.
 */
export function nextCompensation(s: Saga): Compensation | undefined {
  if (s.inDoubt && !s.done.includes(s.inDoubt) && !s.undone.includes(s.inDoubt)) return { redrive: s.inDoubt }
  const step = [...s.done].reverse().find((d) => !s.undone.includes(d))
  return step ? { undo: step } : undefined
}

/** A step undone, or (refused when sent again) found never to have been applied. */
export const undone = (s: Saga, step: Step): Saga => ({ ...s, undone: [...s.undone, step], inDoubt: s.inDoubt === step ? null : s.inDoubt })

/**
 * The avatar refused to undo a step. Refusing to give back the goods of the last step (the
 * bought item is equipped or used, the sale's pay is spent) means the player already has them:
 * the purchase or sale stands and is finished. Any other refusal (a full wallet or inventory)
 * may pass, so the undo is tried again later.
 */
export const undoRefusalMeans = (s: Saga, step: Step): 'stands' | 'retry' => (STEPS[s.kind].at(-1) === step ? 'stands' : 'retry')

export const finished = (s: Saga): Saga => ({ ...s, state: 'DONE', inDoubt: null })

export const compensated = (s: Saga): Saga => ({ ...s, state: 'COMPENSATED', inDoubt: null })
