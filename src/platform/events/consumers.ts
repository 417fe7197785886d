import { partitionOf, type Subscription } from './bus.js'
import { payloadCheck, type EventContract, type EventHandler, type EventOf } from './contract.js'
import type { DeadLetters } from './dead-letters.js'
import type { DomainEvent } from './outbox.js'

/** The type guard for an event whose payload `payloadCheck` found fitting (`reason` undefined). */
const fits = <C extends EventContract>(_contract: C, _event: DomainEvent, reason: string | undefined): _event is EventOf<C> => reason === undefined

/**
 * A consuming context's subscription from its handlers: each delivery's payload is checked
 * against the producer's contract first; one that does not fit is parked (`DeadLetters`), never
 * applied and never retried.
 */
export function subscriptionOf(consumer: string, handlers: EventHandler[], deadLetters: DeadLetters): Subscription {
  const byProducer: Subscription['handlers'] = {}
  for (const { contract, handle, everyCopy } of handlers) {
    const ofProducer = (byProducer[contract.producer] ??= {})
    if (ofProducer[contract.type]) throw new Error(`${consumer} handles ${contract.producer}.${contract.type} twice`)
    const check = payloadCheck(contract)
    ofProducer[contract.type] = async (event, delivery) => {
      // A copy of the event for other partitions' avatars: handled whole by its own partition's.
      if (delivery && !everyCopy && delivery.partition !== partitionOf(event)) return
      const reason = check(event.payload)
      if (fits(contract, event, reason)) return handle(event, delivery)
      // Parked once, from the event's own copy.
      if (!delivery || delivery.partition === partitionOf(event)) await deadLetters.park(consumer, contract.producer, event, reason ?? 'unknown')
    }
  }
  return { consumer, handlers: byProducer }
}
