import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { expect, inject, test } from 'vitest'
import { Database } from '../src/platform/db/database.js'
import { DataDirInUse, DataDirLock } from '../src/platform/db/lock-file.js'
import { migrateDatabase } from '../src/platform/db/migrate.js'
import { backend, databaseUrl, dropDatabase } from './support/backends.js'

const tempDir = async (onTestFinished: (fn: () => Promise<void>) => void) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'questline-lock-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

test('a second process cannot open a data dir that is in use; a crashed owner\'s lock is taken over', async ({ onTestFinished }) => {
  const dir = await tempDir(onTestFinished)
  const lock = await DataDirLock.acquire(dir)
  // Our own pid is alive, so to this second attempt the dir is held by a live process.
  await expect(DataDirLock.acquire(dir)).rejects.toThrow(DataDirInUse)
  await lock.release()
  const again = await DataDirLock.acquire(dir)
  await again.release()

  // A pid that cannot be running: the lock is stale.
  await writeFile(path.join(dir, 'questline.lock'), '2147483646')
  const taken = await DataDirLock.acquire(dir)
  await taken.release()
})

test.runIf(backend() === 'embedded')('the embedded database keeps its data in the data dir across restarts', async ({ onTestFinished }) => {
  const dir = await tempDir(onTestFinished)
  const first = await Database.embedded({ dataDir: dir })
  await migrateDatabase(first)
  await first.db.execute(sql`create table public.probe (v text)`)
  await first.db.execute(sql`insert into public.probe values ('kept')`)
  await expect(Database.embedded({ dataDir: dir })).rejects.toThrow(DataDirInUse)
  await first.close()

  const second = await Database.embedded({ dataDir: dir })
  onTestFinished(() => second.close())
  const res = (await second.db.execute(sql`select v from public.probe`)) as unknown as { rows: { v: string }[] }
  expect(res.rows).toEqual([{ v: 'kept' }])
}, 60_000)

test.runIf(backend() === 'postgres')('many processes migrating a fresh PostgreSQL database at once all succeed', async ({ onTestFinished }) => {
  const { postgresAdminUrl, runId } = inject('templates')
  const name = `${runId}_migrate_race`
  const admin = new pg.Client({ connectionString: postgresAdminUrl })
  await admin.connect()
  await admin.query(`create database "${name}"`)
  await admin.end()
  onTestFinished(() => dropDatabase(postgresAdminUrl!, name))

  const url = databaseUrl(postgresAdminUrl!, name)
  const databases = await Promise.all(Array.from({ length: 4 }, () => Database.postgres(url, 1)))
  onTestFinished(async () => {
    for (const d of databases) await d.close()
  })
  await Promise.all(databases.map((d) => migrateDatabase(d, url)))
  const res = (await databases[0]!.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)) as unknown as { rows: { n: number }[] }
  expect(res.rows[0]!.n).toBeGreaterThanOrEqual(1)
  const tables = (await databases[0]!.db.execute(sql`select count(*)::int as n from information_schema.tables where table_schema in ('avatar', 'identity')`)) as unknown as { rows: { n: number }[] }
  expect(tables.rows[0]!.n).toBeGreaterThanOrEqual(6)
})
