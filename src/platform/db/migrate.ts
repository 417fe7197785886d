import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import { type Database, pgErrorCode } from './database.js'

/** The project's `drizzle/` folder: the nearest one up from this module (run from source or bundled). */
const MIGRATIONS_FOLDER = findMigrations(path.dirname(fileURLToPath(import.meta.url)))

function findMigrations(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'drizzle', 'meta', '_journal.json'))) return path.join(dir, 'drizzle')
    if (path.dirname(dir) === dir) throw new Error(`No drizzle/ migrations folder above ${from}`)
  }
}

/** Any constant will do; every Questline process agrees on it. */
const MIGRATION_LOCK_KEY = 7_411_902_113

/** When the newest migration of `drizzle/` was made: drizzle records it as the applied migration's `created_at`. */
function newestMigration(): number {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number }[] }
  return Math.max(0, ...journal.entries.map((e) => e.when))
}

const NO_SUCH_TABLE = '42P01'
const NO_SUCH_SCHEMA = '3F000'

/**
 * Whether the database already has every migration, read from drizzle's own table: one query,
 * no lock, no DDL. drizzle records migrations in the transaction that applies them, so a
 * process that sees the newest one recorded sees it applied.
 */
async function isMigrated(database: Database): Promise<boolean> {
  try {
    const result = (await database.db.execute(sql`select max(created_at) as newest from drizzle.__drizzle_migrations`)) as unknown as {
      rows: { newest: string | number | null }[]
    }
    const newest = result.rows[0]?.newest
    return newest != null && Number(newest) >= newestMigration()
  } catch (e) {
    const code = pgErrorCode(e)
    if (code === NO_SUCH_TABLE || code === NO_SUCH_SCHEMA) return false
    throw e
  }
}

/**
 * Applies the generated SQL migrations, unless the database has them all already (the usual
 * start). On PostgreSQL many processes may start at once: each takes a session advisory lock on
 * a connection of its own, so they apply one after another and the later ones find nothing left
 * to do.
 */
export async function migrateDatabase(database: Database, databaseUrl?: string): Promise<void> {
  await database.opened
  if (await isMigrated(database)) return
  if (database.kind === 'embedded') {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: MIGRATIONS_FOLDER })
    return
  }
  if (!databaseUrl) throw new Error('migrateDatabase needs the database URL for PostgreSQL')
  const [{ default: pg }, { drizzle: drizzlePg }, { migrate: migratePg }] = await Promise.all([
    import('pg'), import('drizzle-orm/node-postgres'), import('drizzle-orm/node-postgres/migrator'),
  ])
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const db = drizzlePg(client)
    await db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`)
    try {
      await migratePg(db, { migrationsFolder: MIGRATIONS_FOLDER })
    } finally {
      await db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`)
    }
  } finally {
    await client.end()
  }
}
