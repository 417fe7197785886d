import { AsyncLocalStorage } from 'node:async_hooks'
import { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { type AcquireOptions, DataDirLock } from './lock-file.js'

type Db = PgDatabase<PgQueryResultHKT>
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** Anything a repository can query through: the pool or an open transaction. */
export type Queryable = Db | Tx

/** PostgreSQL error codes worth retrying a whole transaction for. */
const RETRYABLE = new Set(['40001', '40P01'])
const MAX_ATTEMPTS = 5
/** Coalesced statements of one kind out at once on PostgreSQL (see `statementsInFlight`). */
const STATEMENTS_IN_FLIGHT = 2

/** The transaction open in an async context, and what waits for its commit. */
interface UnitOfWork {
  tx: Tx
  afterCommit: (() => void)[]
}

/** Runs one SQL statement on its own (autocommit): by a fixed name, so PostgreSQL keeps it prepared, or unnamed, planned for its values. */
type RawQuery = (name: string | undefined, text: string, params: unknown[]) => Promise<Record<string, unknown>[]>

/**
 * The platform's one database handle, embedded (PGlite) or PostgreSQL, with the same API.
 * `transaction` joins a transaction already open in the same async context (a use case calling
 * another of its own context's); a call to another context inside one is refused
 * (`assertNoOpenTransaction`), since split it could not join it.
 */
export class Database {
  private readonly ambient = new AsyncLocalStorage<UnitOfWork>()

  private constructor(
    readonly kind: 'embedded' | 'postgres',
    readonly db: Db,
    private readonly release: () => Promise<void>,
    private readonly raw: RawQuery,
    /** Settles once the database can be queried (queries sent before wait for it). */
    readonly opened: Promise<void>,
    /** Raw client for dumps (embedded only). */
    readonly pglite?: PGlite,
    private readonly lock?: DataDirLock,
  ) {
    // Whoever needs it awaits `opened`; a failure nobody awaited yet must not end the process.
    opened.catch(() => undefined)
  }

  /**
   * The embedded database. With `waitReady: false` it answers as soon as the data directory is
   * locked and PGlite has begun starting (reading its files, compiling its WebAssembly), so the
   * caller can do other work meanwhile; `opened` tells when it is ready.
   */
  static async embedded(opts: { dataDir?: string; loadDataDir?: Blob; waitReady?: boolean; lock?: AcquireOptions }): Promise<Database> {
    const lock = opts.dataDir ? await DataDirLock.acquire(opts.dataDir, opts.lock) : undefined
    try {
      const client = new PGlite({
        ...(opts.dataDir ? { dataDir: opts.dataDir + '/pgdata' } : {}),
        ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
      })
      const db = drizzlePglite(client) as unknown as Db
      const raw: RawQuery = async (_name, text, params) => (await client.query<Record<string, unknown>>(text, params)).rows
      const database = new Database('embedded', db, async () => {
        try {
          // A PGlite that failed to start has nothing to close.
          if (await client.waitReady.then(() => true, () => false)) await client.close()
        } finally {
          await lock?.release()
        }
      }, raw, client.waitReady, client, lock)
      if (opts.waitReady !== false) await database.opened
      return database
    } catch (e) {
      await lock?.release()
      throw e
    }
  }

  /** PostgreSQL through a pool (the driver is loaded only for this shape). */
  static async postgres(url: string, poolSize: number): Promise<Database> {
    const [{ default: pg }, { drizzle: drizzlePg }] = await Promise.all([import('pg'), import('drizzle-orm/node-postgres')])
    const pool = new pg.Pool({ connectionString: url, max: poolSize })
    // An idle client's error (server restart) must not crash the process; the next query reports it.
    pool.on('error', () => {})
    const db = drizzlePg(pool) as unknown as Db
    const raw: RawQuery = async (name, text, values) => (await pool.query<Record<string, unknown>>({ ...(name ? { name } : {}), text, values })).rows
    return new Database('postgres', db, () => pool.end(), raw, Promise.resolve())
  }

  /**
   * How many coalesced statements of one kind may be out at once (`Coalescer`): the embedded
   * engine runs one statement at a time anyway; a pool overlaps a few round trips.
   */
  get statementsInFlight(): number {
    return this.kind === 'embedded' ? 1 : STATEMENTS_IN_FLIGHT
  }

  /**
   * One statement in autocommit, outside any transaction: the fewest round trips a write can take.
   * `name` must always go with the same `text` (PostgreSQL prepares it once per connection).
   */
  statement(name: string, text: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    return this.raw(name, text, params)
  }

  /**
   * The same, planned anew for the values it is given each time, not kept prepared: for tables
   * whose size swings (outboxes fill and empty). PostgreSQL keeps a prepared statement's generic
   * plan once made, and one made while the table was nearly empty (a sequential scan) goes on
   * being used after it has grown to thousands of pages, until the table is next analyzed.
   */
  plannedEachTime(text: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    return this.raw(undefined, text, params)
  }

  /** The open transaction of this async context, else the pool. */
  current(): Queryable {
    return this.ambient.getStore()?.tx ?? this.db
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const open = this.ambient.getStore()
    if (open) return fn(open.tx)
    for (let attempt = 1; ; attempt++) {
      const afterCommit: (() => void)[] = []
      try {
        const result = await this.db.transaction((tx) => this.ambient.run({ tx, afterCommit }, () => fn(tx)))
        for (const callback of afterCommit) callback()
        return result
      } catch (e) {
        if (attempt >= MAX_ATTEMPTS || !RETRYABLE.has(pgErrorCode(e) ?? '')) throw e
      }
    }
  }

  /** Runs `callback` once the transaction open here commits (at once when none is open). */
  afterCommit(callback: () => void): void {
    const open = this.ambient.getStore()
    if (open) open.afterCommit.push(callback)
    else callback()
  }

  /**
   * Throws when a transaction is open in this async context. In-process port adapters call it
   * first: a call to another context would silently join this transaction in one process, and
   * be an HTTP call made while its row locks are held in split services (DESIGN §9.1). Always on:
   * it is a programming error, and a cheap check.
   */
  assertNoOpenTransaction(what: string): void {
    if (this.ambient.getStore()) {
      throw new Error(`${what} was called inside an open database transaction: read what the decision needs before it opens, and reach other contexts after commit.`)
    }
  }

  /**
   * The port with every method checking first that no transaction is open here
   * (`assertNoOpenTransaction`): the one guard of all in-process adapters.
   */
  outsideTransactions<P extends object>(portName: string, port: P): P {
    const guarded: Record<string, unknown> = {}
    for (const [method, call] of Object.entries(port)) {
      guarded[method] = async (...args: unknown[]) => {
        this.assertNoOpenTransaction(`${portName}.${method}`)
        return (call as (...a: unknown[]) => Promise<unknown>)(...args)
      }
    }
    return guarded as P
  }

  /**
   * Says, in the data directory's lock, that this process is stopping: a process starting on the
   * same directory meanwhile waits for it to finish rather than refusing (embedded only).
   */
  async markStopping(): Promise<void> {
    await this.lock?.markStopping()
  }

  async ping(): Promise<void> {
    await this.db.execute(sql`select 1`)
  }

  close(): Promise<void> {
    return this.release()
  }
}

/** The SQLSTATE of a database error, looking through drizzle's wrapping. */
export function pgErrorCode(e: unknown): string | undefined {
  for (let cur = e as { code?: unknown; cause?: unknown } | undefined, depth = 0; cur && depth < 4; depth++) {
    if (typeof cur.code === 'string' && /^[0-9A-Z]{5}$/.test(cur.code)) return cur.code
    cur = cur.cause as typeof cur
  }
  return undefined
}

export const UNIQUE_VIOLATION = '23505'

/** The constraint (or unique index) a database error names, looking through drizzle's wrapping. */
function pgConstraint(e: unknown): string | undefined {
  for (let cur = e as { constraint?: unknown; cause?: unknown } | undefined, depth = 0; cur && depth < 4; depth++) {
    if (typeof cur.constraint === 'string') return cur.constraint
    cur = cur.cause as typeof cur
  }
  return undefined
}

/**
 * Runs a store's statement, turning a unique violation of one of the named constraints (or
 * unique indexes) into the domain error the store gives for it; anything else goes through as it
 * came. The store decides by the constraint's exact name: no other layer looks at database errors.
 */
export async function refusingDuplicates<T>(work: Promise<T>, refusals: Record<string, () => Error>): Promise<T> {
  try {
    return await work
  } catch (e) {
    const refusal = pgErrorCode(e) === UNIQUE_VIOLATION ? refusals[pgConstraint(e) ?? ''] : undefined
    throw refusal ? refusal() : e
  }
}
