/**
 * The one write path of the platform (DESIGN §9.1). A context describes an aggregate
 * (`AggregateDefinition`) and decides; the writer owns everything else:
 * - the batch: concurrent commands on one aggregate are decided one after another on the same
 *   state, in arrival order, and written together; each caller gets its own outcome;
 * - group commit: the batches of every aggregate of that kind at one moment load in one statement
 *   and write in one statement;
 * - the guarded write: a state is written only while the aggregate is still at the version that
 *   was read (a race with another process writes nothing, and the batch is decided again on fresh
 *   state); a database failure is retried, then answered 503 with nothing applied;
 * - the version: each applied command raises it by one and its events carry it;
 * - the outbox rows, written with the state, and their hand-off to the relay after commit;
 * - keyed calls: a key answered before answers again as it did, and changes nothing.
 * It also offers the transactional path (`insert`, `save`, `remove` inside a transaction).
 */
import { eq } from 'drizzle-orm'
import type { Clock } from '../clock.js'
import type { Database, Tx } from '../db/database.js'
import { IdempotencyKeyReused, type AppError } from '../errors.js'
import type { EventDraft } from '../events/outbox.js'
import { writtenEvents, type WrittenEvent } from '../events/outbox.js'
import { BoundedMap } from '../bounded-map.js'
import { newId } from '../ids.js'
import type { Logger } from '../log.js'
import { statementIn } from '../db/raw-statement.js'
import { changingColumns, keyColumn, type AggregateDefinition, type ColumnShape, type Versioned } from './aggregate.js'
import { failed, KeyedBatcher, succeeded, type Outcome } from './batcher.js'
import { Coalescer } from './coalescer.js'
import type { BatchedCommand, Draft } from './decisions.js'
import { RACE_LOST, untilWritten } from './retry.js'
import { writeParams, type StatementRunner, type Write } from './group-write.js'
import { loadStatement, rowFromJson, writeStatement } from './statements.js'

/** What a key was answered with, and for which call. */
export interface Answer {
  of: string
  operation: string
  result: unknown
}

/** An aggregate as a batch loads it: its state, and the answers already given to its commands' keys. */
export interface Loaded<S> {
  state: S
  answers: Map<string, Answer>
}

/** A batch's write as it committed (for `afterWrite`). */
export interface Written<S> {
  state: S
  events: WrittenEvent[]
  at: Date
}

export interface WriterOptions<S extends Versioned, D extends Draft, X, C extends BatchedCommand<S, D, unknown, X> = BatchedCommand<S, D, unknown, X>> {
  database: Database
  clock: Clock
  /** What an unknown aggregate answers. */
  missing: (id: string) => AppError
  /**
   * How many aggregates this process remembers as it last wrote them, so their next batch needs no
   * read (the guarded write proves the memory current). 0 when a decision also needs what is not
   * in the aggregate's row (it changes without the aggregate's version moving).
   */
  remember?: number
  /**
   * A state that never changes again, and is never deleted (a finished battle): a refusal decided
   * on it as remembered is as true as one decided on it just read, so it needs no read.
   */
  final?: (state: S) => boolean
  /** Loads aggregates another way than by their row alone (default: the row, with the answers of their keys). */
  load?: (asked: { id: string; keys: string[] }[]) => Promise<Map<string, Loaded<S>>>
  /** Reads of other contexts a batch's decisions need, made after the aggregate is loaded and outside any transaction. */
  readFirst?: (state: S, commands: C[]) => Promise<X>
  /** An event every write carries last, from the state as written (its final version). */
  summary?: (state: S) => D
  /** Other contexts reached once a batch committed, before the aggregate's next batch; it handles its own failures. */
  afterWrite?: (written: Written<S>) => Promise<void>
  log?: Logger
}


/** How many answers of keyed calls a process remembers (they never change, so the memory is exact). */
const REMEMBERED_ANSWERS = 10_000

export class AggregateWriter<S extends Versioned, D extends Draft = Draft, X = undefined, C extends BatchedCommand<S, D, unknown, X> = BatchedCommand<S, D, unknown, X>> {
  private readonly batches: KeyedBatcher<C, unknown>
  private readonly loads: Coalescer<{ id: string; keys: string[] }, Loaded<S> | undefined>
  private readonly writes: Coalescer<Write<S>, boolean>
  private readonly remembered: BoundedMap<string, S> | undefined
  private readonly answered = new BoundedMap<string, Answer>(REMEMBERED_ANSWERS)
  private readonly stateColumns: ColumnShape[]
  private readonly writeSql: string
  private readonly loadSql: string

  constructor(readonly definition: AggregateDefinition<S>, private readonly o: WriterOptions<S, D, X, C>) {
    const db = o.database
    this.stateColumns = [keyColumn(definition), ...changingColumns(definition)]
    this.writeSql = writeStatement(definition)
    this.loadSql = loadStatement(definition)
    this.remembered = o.remember ? new BoundedMap(o.remember) : undefined
    this.batches = new KeyedBatcher((id, commands) => this.applyBatch(id, commands))
    this.loads = new Coalescer(async (asked) => {
      const loaded = await this.loadMany(asked)
      return asked.map((a) => loaded.get(a.id))
    }, db.statementsInFlight, 'tick')
    this.writes = new Coalescer(async (writes) => {
      const written = await this.writeMany(writes)
      return writes.map((w) => written.has(w.id))
    }, db.statementsInFlight, 'tick')
  }

  /**
   * Aggregates as they are now, read from the database (never from memory), each with the answers
   * given to those of its `keys` it has taken, in one statement: for reads of other contexts,
   * which gather them their own way (a batch's loads gather in the writer).
   */
  loadMany(asked: { id: string; keys: string[] }[]): Promise<Map<string, Loaded<S>>> {
    return (this.o.load ?? ((a) => this.loadRows(a)))(asked)
  }

  /** How batches went so far (for /metrics). */
  get batchStats() {
    return this.batches.stats
  }

  /**
   * A command in the aggregate's next batch; answers its own outcome. Never inside a transaction:
   * its write is a statement of its own, which would not join one.
   */
  submit<R>(id: string, command: BatchedCommand<S, D, R, X> & Omit<C, 'decide' | 'call'>): Promise<R> {
    this.o.database.assertNoOpenTransaction(`A change of ${this.definition.name} '${id}'`)
    // What C adds to a command (what the batch's reads need of it) is there: `Omit<C, …>`.
    return this.batches.submit(id, command as unknown as C) as Promise<R>
  }

  /**
   * One batch: the aggregate loaded (or remembered), what the batch reads of other contexts, the
   * commands decided in arrival order, and one guarded write. Answers that write nothing are given
   * only on state just read, or from answers of keys (which never change).
   */
  private applyBatch(id: string, commands: C[]): Promise<Outcome<unknown>[]> {
    return untilWritten(`${this.definition.name} '${id}'`, async () => {
      const replayed = commands.map((c) => (c.call ? this.answered.get(c.call.key) : undefined))
      if (replayed.every((a) => a !== undefined)) return commands.map((c, i) => this.replay(id, c, replayed[i]!))
      // Taken, not just looked at: after a lost or failed attempt the next one reads (a final state stays).
      const remembered = this.remembered?.get(id)
      if (remembered && !this.o.final?.(remembered)) this.remembered?.delete(id)
      const keys = commands.flatMap((c, i) => (c.call && !replayed[i] ? [c.call.key] : []))
      const loaded = remembered ? { state: remembered, answers: new Map<string, Answer>() } : await this.loads.submit({ id, keys })
      if (!loaded) return commands.map(() => failed(this.o.missing(id)))
      const reads = this.o.readFirst ? await this.o.readFirst(loaded.state, commands) : (undefined as X)
      const decided = this.decide(id, loaded, commands, reads)
      if (!decided.write) return remembered && !this.o.final?.(remembered) && decided.outcomes.some((o) => !o.ok) ? RACE_LOST : decided.outcomes
      if (!(await this.writes.submit(decided.write))) return RACE_LOST
      await this.committed(decided.write)
      return decided.outcomes
    })
  }

  private replay(id: string, command: C, answer: Answer): Outcome<unknown> {
    if (answer.of !== id || answer.operation !== command.call!.operation) return failed(new IdempotencyKeyReused(command.call!.key))
    return succeeded(answer.result)
  }

  /**
   * Each command on the state the ones before it left: a refusal answers its own error and leaves
   * the state as it was; a key answered before (or earlier in this batch) answers as it did. Each
   * applied command raises the version by one. No write when none applied.
   */
  private decide(id: string, loaded: Loaded<S>, commands: C[], reads: X) {
    const at = this.o.clock.now()
    const readVersion = loaded.state.version
    const answers = new Map(loaded.answers)
    let state = loaded.state
    const events: WrittenEvent[] = []
    const written: Write<S>['answers'] = []
    const parts: Record<string, Record<string, unknown>[]> = {}
    const outcomes = commands.map((command): Outcome<unknown> => {
      const { call } = command
      const earlier = call && (answers.get(call.key) ?? this.answered.get(call.key))
      if (earlier) return this.replay(id, command, earlier)
      try {
        const decision = command.decide(state, reads)
        // The state it was given, and nothing else: there was nothing to do (no version, no write).
        if (decision.state === state && !decision.events?.length && !decision.parts && !call) return succeeded(decision.result)
        const version = state.version + 1
        state = { ...decision.state, version }
        for (const e of decision.events ?? []) events.push({ id: e.id ?? newId(), type: e.type, version, payload: e.payload })
        for (const [part, rows] of Object.entries(decision.parts ?? {})) (parts[part] ??= []).push(...(rows ?? []))
        if (call) {
          written.push({ key: call.key, operation: call.operation, result: decision.result ?? null })
          answers.set(call.key, { of: id, operation: call.operation, result: decision.result ?? null })
        }
        return succeeded(decision.result)
      } catch (e) {
        return failed(e)
      }
    })
    if (state.version === readVersion) return { outcomes }
    if (this.o.summary) {
      const last = this.o.summary(state)
      events.push({ id: newId(), type: last.type, version: state.version, payload: last.payload })
    }
    return { outcomes, write: { id, readVersion, state, events, answers: written, parts, at } }
  }

  /**
   * After a batch's write: what it wrote is remembered, its events go to the relay, and other
   * contexts are reached (`afterWrite`), before the aggregate's next batch. The write stands
   * whatever happens after it, so nothing here may make the batch be decided again.
   */
  private async committed(w: Write<S>): Promise<void> {
    this.remembered?.set(w.id, w.state)
    for (const a of w.answers) this.answered.set(a.key, { of: w.id, operation: a.operation, result: a.result })
    const events = writtenEvents(w.id, w.at, w.events)
    this.definition.outbox.committed(events)
    if (!this.o.afterWrite) return
    try {
      await this.o.afterWrite({ state: w.state, events: w.events, at: w.at })
    } catch (e) {
      this.o.log?.error({ err: e, aggregate: this.definition.name, id: w.id }, 'after a committed write, reaching other contexts failed')
    }
  }

  /** The aggregates' rows with the answers of their keys, in one statement. */
  private async loadRows(asked: { id: string; keys: string[] }[]): Promise<Map<string, Loaded<S>>> {
    const rows = await this.o.database.statement(`writer_${this.definition.name}_load`, this.loadSql, [JSON.stringify(asked)])
    return new Map(rows.map((r) => {
      const state = this.definition.toState(rowFromJson(this.definition.table, r.row as Record<string, unknown>))
      const answers = new Map((r.answers as (Answer & { key: string })[]).map(({ key, ...a }) => [key, a]))
      return [this.definition.keyOf(state), { state, answers }]
    }))
  }

  /** Every write of the moment in one statement; answers the ids written (one whose version moved on is not). */
  private async writeMany(writes: Write<S>[], run: StatementRunner = (t, p) => this.o.database.statement(`writer_${this.definition.name}_write`, t, p)): Promise<Set<string>> {
    const rows = await run(this.writeSql, writeParams(this.definition, this.stateColumns, writes))
    return new Set(rows.map((r) => r.key as string))
  }

  // ---- the transactional path: inside a transaction the caller opened ----

  /** A new aggregate at version 1, with its events; undefined when one with its key exists already (nothing written). */
  async insert(tx: Tx, state: S, events: D[], fixed: Record<string, unknown> = {}): Promise<S | undefined> {
    const d = this.definition
    const made = { ...state, version: 1 }
    const rows = await tx.insert(d.table).values({ ...(d.toRow(made) as Record<string, unknown>), ...fixed }).onConflictDoNothing()
      .returning({ key: d.key })
    if (rows.length === 0) return undefined
    await this.addEvents(tx, made, events)
    this.o.database.afterCommit(() => this.remembered?.set(d.keyOf(made), made))
    return made
  }

  /**
   * The aggregate changed from `before` (read in this transaction) to `after`, one version on, with
   * its events; undefined when its version has moved past `before`'s (nothing written). Lock it when
   * reading to be sure it is.
   */
  async save(tx: Tx, before: S, after: S, events: D[] = []): Promise<S | undefined> {
    const [saved] = await this.saveMany(tx, [{ before, after, events }])
    return saved
  }

  /** Many aggregates changed in one statement (as `save`); answers those written, in order (one whose version moved past its `before` is left out). */
  async saveMany(tx: Tx, changes: { before: S; after: S; events?: D[] }[]): Promise<S[]> {
    if (changes.length === 0) return []
    const at = this.o.clock.now()
    const writes = changes.map(({ before, after, events = [] }): Write<S> => {
      const state = { ...after, version: before.version + 1 }
      return {
        id: this.definition.keyOf(before), readVersion: before.version, state, answers: [], parts: {}, at,
        events: events.map((e) => ({ id: newId(), type: e.type, version: state.version, payload: e.payload })),
      }
    })
    const written = await this.writeMany(writes, (text, params) => statementIn(tx, text, params))
    const saved = writes.filter((w) => written.has(w.id))
    this.o.database.afterCommit(() => {
      for (const w of saved) this.remembered?.set(w.id, w.state)
      this.definition.outbox.committed(saved.flatMap((w) => writtenEvents(w.id, w.at, w.events)))
    })
    return saved.map((w) => w.state)
  }

  /** Deletes the aggregate (read in this transaction); its events carry the version after it. */
  async remove(tx: Tx, before: S, events: D[] = []): Promise<void> {
    const d = this.definition
    const id = d.keyOf(before)
    this.remembered?.delete(id)
    await tx.delete(d.table).where(eq(d.key, id))
    await this.addEvents(tx, { ...before, version: before.version + 1 }, events)
    this.o.database.afterCommit(() => this.remembered?.delete(id))
  }

  private async addEvents(tx: Tx, state: S, events: D[]): Promise<void> {
    const aggregateId = this.definition.keyOf(state)
    await this.definition.outbox.add(tx, events.map((e): EventDraft => ({ ...e, aggregateId, version: state.version })))
  }
}
