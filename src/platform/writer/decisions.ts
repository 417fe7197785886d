/**
 * The shapes a use case hands the writer. A use case is one of two kinds, and its type says which:
 * - a `BatchedCommand` is decided in its aggregate's batch (with whatever else arrived for that
 *   aggregate meanwhile) on the state the commands before it left, and written by the writer with
 *   the other aggregates' batches of the moment in shared statements (group commit). It runs
 *   outside any transaction and answers its own outcome.
 * - a `TransactionalChange` runs in one transaction of its own (`Database.transaction`): it locks
 *   what it reads, decides, and has the writer `insert`, `save` or `remove` the aggregate in it.
 * In both, the writer alone sets the version and stamps it on the events.
 */
import type { PgTable } from 'drizzle-orm/pg-core'
import type { Tx } from '../db/database.js'
import type { Versioned } from './aggregate.js'

/** An event a decision causes, before the writer gives it its aggregate and version. */
export interface Draft {
  type: string
  payload: unknown
}

/** An event a decision causes; `id` when the decision needs to name it (a key derived from it), else the writer gives one. */
export type DecidedEvent<D extends Draft> = D & { id?: string }

/** A call applied at most once per key (an idempotency key, or an event applied once): a key seen before answers as it did then. */
export interface KeyedCall {
  key: string
  operation: string
}

/** What a decision writes besides the state: rows of the aggregate's parts, by part name. */
export type PartRows<P extends string = string> = Partial<Record<P, Record<string, unknown>[]>>

/** What one command decided: the new state, the events it causes, rows of parts, and its answer. */
export interface Decision<S extends Versioned, D extends Draft, R, P extends string = string> {
  state: S
  events?: DecidedEvent<D>[]
  parts?: PartRows<P>
  result: R
}

/**
 * A command in an aggregate's batch: decided on the state the commands before it left, with what
 * the batch read of other contexts first (`reads`). A refusal is thrown (a platform AppError) and
 * answers this command alone.
 */
export interface BatchedCommand<S extends Versioned, D extends Draft, R, X = undefined, P extends string = string> {
  decide: (state: S, reads: X) => Decision<S, D, R, P>
  call?: KeyedCall | undefined
}

/** A change in a transaction of its own (see the module comment). */
export type TransactionalChange<T> = (tx: Tx) => Promise<T>

/** Rows a table takes, for parts. */
export type PartRow<T extends PgTable> = T['$inferInsert']
