/**
 * Test databases. Migrating a fresh PGlite takes seconds, so each run migrates one template
 * (a PGlite dump, or a PostgreSQL template database) and every test app starts from a copy.
 */
import { readFile } from 'node:fs/promises'
import pg from 'pg'
import { Database } from '../../src/platform/db/database.js'

type Backend = 'embedded' | 'postgres'

export const backend = (): Backend => (process.env.QL_TEST_BACKEND === 'postgres' ? 'postgres' : 'embedded')

/** Shared by the global setup and the tests of one run. */
export interface TemplateInfo {
  embeddedDumpFile?: string
  postgresAdminUrl?: string
  postgresTemplate?: string
  /** Questline as one prebuilt module, for the split-services project. */
  bundle?: string
  runId: string
}

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.toString()
}

let seq = 0

export interface TestDatabase {
  database: Database
  url?: string
  drop(): Promise<void>
}

export async function openTestDatabase(t: TemplateInfo): Promise<TestDatabase> {
  if (backend() === 'embedded') {
    const dump = await readFile(t.embeddedDumpFile!)
    const database = await Database.embedded({ loadDataDir: new Blob([dump]) })
    return { database, drop: () => database.close() }
  }
  return openPostgresTestDatabase(t)
}

/** A fresh PostgreSQL database copied from the run's migrated template. */
export async function openPostgresTestDatabase(t: TemplateInfo, poolSize = 10): Promise<TestDatabase> {
  const name = `${t.runId}_${process.pid}_${++seq}`
  await createDatabase(t.postgresAdminUrl!, name, t.postgresTemplate)
  const url = databaseUrl(t.postgresAdminUrl!, name)
  const database = await Database.postgres(url, poolSize)
  return {
    database,
    url,
    drop: async () => {
      await database.close()
      await dropDatabase(t.postgresAdminUrl!, name)
    },
  }
}

/** An empty PostgreSQL database (nothing migrated), dropped by the answer's `drop`. */
export async function createEmptyPostgresDatabase(t: TemplateInfo): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${t.runId}_${process.pid}_${++seq}_empty`
  await createDatabase(t.postgresAdminUrl!, name)
  return { url: databaseUrl(t.postgresAdminUrl!, name), drop: () => dropDatabase(t.postgresAdminUrl!, name) }
}

export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`create database "${name}"${template ? ` template "${template}"` : ''}`)
  } finally {
    await admin.end()
  }
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists "${name}" with (force)`)
  } finally {
    await admin.end()
  }
}
