/**
 * Events as checked contracts: each event type is declared once, by its producer, with a TypeBox
 * schema of its payload. Producers write drafts of that shape; consumers name the contracts they
 * handle and get payloads checked on receipt (see `subscriptionOf`).
 */
import type { Static, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import type { Delivery } from './bus.js'
import type { DomainEvent } from './outbox.js'
import { partition } from '../ownership/partitions.js'

export interface EventContract<T extends string = string, S extends TSchema = TSchema> {
  /** The producing context: events travel on `questline.<producer>.<type>`. */
  producer: string
  type: T
  payload: S
}

/** The event a contract describes, as a consumer receives it. */
export type EventOf<C extends EventContract> = DomainEvent<C['type'], Static<C['payload']>>

/** What a producer writes for an event of one of its contracts (the outbox adds id and time). */
type DraftOf<C extends EventContract> = { type: C['type']; payload: Static<C['payload']> }

/** The contracts of one producer: `const event = eventsOf('tracking')`, then `event('HabitAttended', schema)`. */
export const eventsOf = (producer: string) =>
  <T extends string, S extends TSchema>(type: T, payload: S): EventContract<T, S> => ({ producer, type, payload })

/** A consumer's handling of one event type. */
export interface EventHandler<C extends EventContract = EventContract> {
  contract: C
  // A method, so a handler of one contract may stand in a list of any: it is only ever called
  // with an event its contract's check let through (`subscriptionOf`).
  handle(event: EventOf<C>, delivery?: Delivery): Promise<void>
  /**
   * Handles every copy of an event that travels to several partitions (`partitionsOf`), each for
   * its partition's avatars; any other handler gets the event once, its own partition's copy.
   */
  everyCopy?: true
}

/** `on(HabitAttended, (e) => …)`: `e.payload` is typed by the contract's schema and checked before the call. */
/**
 * The idempotency key of an event's effect on one aggregate: whoever applies that effect (the
 * event's consumer, or the producer reaching the aggregate's context right after commit) applies
 * it under this key, so it happens once.
 */
export const effectKey = (eventId: string, aggregateId: string): string => `event:${eventId}:${aggregateId}`

export const on = <C extends EventContract>(contract: C, handle: (event: EventOf<C>) => Promise<void>): EventHandler<C> => ({ contract, handle })

/**
 * `onParticipants(BattleLost, (e, avatarIds) => …)`: an event's effect on the avatars it names
 * (`participants`). On a partitioned bus each partition's copy brings that partition's avatars,
 * so each is changed by the replica owning it; on a bus that delivers events whole, all of them.
 */
export const onParticipants = <C extends EventContract<string, TSchema>>(
  contract: EventOf<C>['payload'] extends { participants: string[] } ? C : never,
  handle: (event: EventOf<C>, avatarIds: string[]) => Promise<void>,
): EventHandler<C> => ({
  contract,
  everyCopy: true,
  handle: (event, delivery) => {
    const all = (event.payload as { participants: string[] }).participants
    return handle(event, delivery ? all.filter((id) => partition(id) === delivery.partition) : all)
  },
})

/** One event's payload checked against its contract: undefined when it fits, else why not. */
type PayloadCheck = (payload: unknown) => string | undefined

const checks = new WeakMap<EventContract, PayloadCheck>()

/** The contract's payload check, compiled on first use. */
export function payloadCheck(contract: EventContract): PayloadCheck {
  let check = checks.get(contract)
  if (!check) {
    const compiled = Compile(contract.payload)
    check = (payload) => {
      if (compiled.Check(payload)) return undefined
      return [...compiled.Errors(payload)].slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')
    }
    checks.set(contract, check)
  }
  return check
}

/** The drafts a producer may write: one of its contracts' shapes (`DraftsOf<[typeof AvatarCreated, typeof AvatarDied]>`). */
export type DraftsOf<Cs extends readonly EventContract[]> = { [K in keyof Cs]: DraftOf<Cs[K]> }[number]
