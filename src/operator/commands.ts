/**
 * Operator commands (`questline backup|restore|admin|keys`). On the embedded engine they work on the
 * data directory themselves when no server holds it, and otherwise ask the server that does
 * (its operator socket); on PostgreSQL, admin and keys work on the database, and backups are pg_dump's.
 */
import { mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import type { Config } from '../config.js'
import { changeRole, type OperatorRole } from '../contexts/edge/app/roles.js'
import { KeysConfigured, KEY_REFRESH_MS } from '../platform/auth/key-ring.js'
import { ensureFirstKey, rotateKeys } from '../platform/auth/key-store.js'
import { readDataDirKey } from '../platform/auth/keys.js'
import { RevocationList } from '../platform/auth/revocations.js'
import { systemClock } from '../platform/clock.js'
import { Database } from '../platform/db/database.js'
import { DataDirInUse, DataDirLock } from '../platform/db/lock-file.js'
import { migrateDatabase } from '../platform/db/migrate.js'
import { encodeBackup, readBackup } from './backup-file.js'
import { isWithin } from './backup-schedule.js'
import { callOperatorSocket, OperatorFailure } from './socket.js'

/** Files of the data directory a backup carries besides the database. */
const KEYS_DIR = 'keys'
const PGDATA = 'pgdata'
const SOCKET = 'questline.sock'
const LOCK_FILE = 'questline.lock'
/** What Questline keeps in a data directory and a restore replaces (the lock stays: the restore holds it). */
const OWN_ENTRIES = [PGDATA, KEYS_DIR, SOCKET]

/** The whole backup of an open embedded database and its data directory's files. */
export async function backupOf(database: Database, dataDir: string): Promise<Buffer> {
  if (!database.pglite) throw new OperatorFailure('Only the embedded database is backed up by questline; use pg_dump for PostgreSQL.')
  // Written out of the write-ahead log first, so a restore has less to replay.
  await database.db.execute(sql`checkpoint`)
  const dump = await database.pglite.dumpDataDir('gzip')
  return encodeBackup({ createdAt: systemClock.now().toISOString(), files: await dataDirFiles(dataDir), database: new Uint8Array(await dump.arrayBuffer()) })
}

async function dataDirFiles(dataDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  const names = await readdir(path.join(dataDir, KEYS_DIR)).catch(() => [] as string[])
  for (const name of names) files[`${KEYS_DIR}/${name}`] = await readFile(path.join(dataDir, KEYS_DIR, name), 'utf8')
  return files
}

/** Runs `work` on the embedded database with the data directory locked, or answers undefined when a server holds it. */
async function withStoppedDirectory<T>(config: Config, work: (database: Database) => Promise<T>, migrate: boolean): Promise<T | undefined> {
  if (!(await stat(path.join(config.dataDir, PGDATA)).catch(() => undefined))) {
    throw new OperatorFailure(`The data directory ${config.dataDir} holds no database yet (start the server on it once, or set DATA_DIR).`)
  }
  let database: Database
  try {
    database = await Database.embedded({ dataDir: config.dataDir })
  } catch (e) {
    if (e instanceof DataDirInUse) return undefined
    throw e
  }
  try {
    if (migrate) await migrateDatabase(database, undefined)
    return await work(database)
  } finally {
    await database.close()
  }
}

export async function backup(config: Config, file: string): Promise<string> {
  if (config.databaseUrl) {
    throw new OperatorFailure('DATABASE_URL is set: the data is in PostgreSQL. Back it up with pg_dump (see docs/operations.md#backups); questline backs up the embedded database.')
  }
  const bytes = await withStoppedDirectory(config, (database) => backupOf(database, config.dataDir), false)
    ?? await callOperatorSocket(config.dataDir, 'backup')
  // Never a half-written backup under the name asked for.
  const partial = `${file}.partial`
  await writeFile(partial, bytes, { mode: 0o600 })
  await rename(partial, file)
  const inside = isWithin(path.resolve(config.dataDir), path.resolve(file))
    ? `; it lies inside the data directory: keep a copy elsewhere too (losing the directory or its volume loses both)` : ''
  return `backed up ${config.dataDir} to ${file} (${(bytes.length / 1024 / 1024).toFixed(1)} MB)${inside}`
}

/**
 * `questline restore FILE [--force]`: the backup's database and files into DATA_DIR. It replaces
 * only what a data directory of Questline's holds (OWN_ENTRIES) and leaves every other file there
 * where it is: a backup kept in the data directory survives the restore (and a failed one can be
 * tried again from it). A backup inside what it replaces is refused before anything is removed.
 */
export async function restore(config: Config, file: string, force: boolean): Promise<string> {
  if (config.databaseUrl) {
    throw new OperatorFailure('DATABASE_URL is set: the data is in PostgreSQL. Restore it with pg_restore (see docs/operations.md#backups); questline restores the embedded database.')
  }
  const contents = await readBackup(file)
  const dataDir = config.dataDir
  const entries = await readdir(dataDir).catch(() => [] as string[])
  const replaced = entries.filter((name) => OWN_ENTRIES.includes(name))
  if (replaced.some((name) => name !== SOCKET) && !force) {
    throw new OperatorFailure(`The data directory ${dataDir} holds data already. Restore into one without (a new or empty directory), or run \`questline restore ${file} --force\` to replace its data.`)
  }
  const realFile = await realpath(file)
  const realDir = await realpath(dataDir).catch(() => path.resolve(dataDir))
  const holding = replaced.find((name) => isWithin(path.join(realDir, name), realFile))
  if (holding) {
    throw new OperatorFailure(`${file} lies inside ${path.join(dataDir, holding)}, which the restore replaces: move it out first (e.g. \`mv ${file} ${path.dirname(dataDir)}/\`) and restore from there. Nothing was changed.`)
  }
  let lock: DataDirLock
  try {
    lock = await DataDirLock.acquire(dataDir)
  } catch (e) {
    if (e instanceof DataDirInUse) throw new OperatorFailure(`${e.message} A restore replaces the data: stop the server first.`)
    throw e
  }
  try {
    for (const name of replaced) await rm(path.join(dataDir, name), { recursive: true, force: true })
    for (const [name, text] of Object.entries(contents.files)) {
      await mkdir(path.dirname(path.join(dataDir, name)), { recursive: true })
      await writeFile(path.join(dataDir, name), text, { mode: 0o600 })
    }
    const pglite = new PGlite({ dataDir: path.join(dataDir, PGDATA), loadDataDir: new Blob([contents.database]) })
    await pglite.waitReady
    await pglite.close()
  } finally {
    await lock.release()
  }
  const kept = entries.filter((name) => !OWN_ENTRIES.includes(name) && name !== LOCK_FILE)
  return `restored ${file} (made ${contents.createdAt}) into ${dataDir}${kept.length > 0 ? `; left there as they were: ${kept.join(', ')}` : ''}`
}

export async function admin(config: Config, action: 'grant' | 'revoke', email: string): Promise<string> {
  const role: OperatorRole = action === 'grant' ? 'admin' : 'player'
  const change = async (database: Database) => {
    const revocations = new RevocationList(database, systemClock)
    return changeRole({ database, clock: systemClock, revocations, accessTokenTtlSeconds: config.accessTokenTtlSeconds }, email, role)
  }
  let done: unknown
  if (config.databaseUrl) {
    const database = await Database.postgres(config.databaseUrl, 1)
    try {
      await migrateDatabase(database, config.databaseUrl)
      done = await change(database)
    } finally {
      await database.close()
    }
  } else {
    done = await withStoppedDirectory(config, change, true)
      ?? JSON.parse((await callOperatorSocket(config.dataDir, 'role', { email, role })).toString('utf8'))
  }
  const { email: address } = done as { email: string }
  return action === 'grant'
    ? `${address} is an admin from the next login or token refresh`
    : `${address} is no longer an admin: their sessions ended, and tokens issued before now are refused`
}

/**
 * `questline keys rotate`: a new current key in the database. The server holding an embedded
 * data directory rotates (and signs with the new key) at once; on PostgreSQL every running
 * process reads the keys again within KEY_REFRESH_MS.
 */
export async function rotateSigningKey(config: Config): Promise<string> {
  if (config.jwtPrivateKey) throw new OperatorFailure(new KeysConfigured().message)
  let kid: string
  if (config.databaseUrl) {
    const database = await Database.postgres(config.databaseUrl, 1)
    try {
      await migrateDatabase(database, config.databaseUrl)
      kid = await rotateKeys(database)
    } finally {
      await database.close()
    }
  } else {
    // A directory not served since keys moved into the database: its key becomes the previous one.
    kid = await withStoppedDirectory(config, async (database) => {
      await ensureFirstKey(database, await readDataDirKey(config.dataDir))
      return rotateKeys(database)
    }, true) ?? (JSON.parse((await callOperatorSocket(config.dataDir, 'rotate-keys')).toString('utf8')) as { kid: string }).kid
  }
  return `a new signing key (kid ${kid}) signs new tokens${config.databaseUrl ? ` on every running process within ${KEY_REFRESH_MS / 1000} s` : ''}; `
    + 'tokens signed with the previous key stay valid until they expire'
}
