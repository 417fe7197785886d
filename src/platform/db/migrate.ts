import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import pg from 'pg'
import type { Database } from './database.js'

/** The project's `drizzle/` folder: the nearest one up from this module (run from source or bundled). */
export const MIGRATIONS_FOLDER = findMigrations(path.dirname(fileURLToPath(import.meta.url)))

function findMigrations(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'drizzle', 'meta', '_journal.json'))) return path.join(dir, 'drizzle')
    if (path.dirname(dir) === dir) throw new Error(`No drizzle/ migrations folder above ${from}`)
  }
}

/** Any constant will do; every Questline process agrees on it. */
const MIGRATION_LOCK_KEY = 7_411_902_113

/**
 * Applies the generated SQL migrations. On PostgreSQL many processes may start at once: each
 * takes a session advisory lock on a connection of its own, so they apply one after another
 * and the later ones find nothing left to do.
 */
export async function migrateDatabase(database: Database, databaseUrl?: string): Promise<void> {
  if (database.kind === 'embedded') {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: MIGRATIONS_FOLDER })
    return
  }
  if (!databaseUrl) throw new Error('migrateDatabase needs the database URL for PostgreSQL')
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
