/**
 * The signing keys kept in the database (`platform.signing_keys`), for platforms without a
 * configured JWT_PRIVATE_KEY: every process on the database, on any machine, uses the same ones.
 */
import { desc, sql } from 'drizzle-orm'
import type { JWK } from 'jose'
import type { Database } from '../db/database.js'
import { generateSigningJwk, readDataDirKey, verifyingKeyOf } from './keys.js'
import { signingKeys } from './tables.js'

/** The keys a process knows: the current one (signs) and the previous one (still verifies). */
const KEYS_IN_USE = 2

export interface StoredKey {
  generation: number
  kid: string
  publicJwk: JWK
  /** Read only by processes that issue tokens. */
  privateJwk?: JWK
}

/** Where a key ring reads its keys (the database; a stand-in in unit tests). */
export interface KeyStore {
  /** The keys in use, newest (current) first; the private halves only when asked. */
  read(withPrivate: boolean): Promise<StoredKey[]>
  /** Makes the first key unless there is one. */
  makeFirst(): Promise<void>
  /** Makes a new current key; answers its kid. */
  rotate(): Promise<string>
}

/** The database's keys; `dataDir`'s key file, when there is one, becomes the first key. */
export function databaseKeyStore(database: Database, dataDir: string | undefined): KeyStore {
  return {
    read: (withPrivate) => readKeys(database, withPrivate),
    makeFirst: async () => ensureFirstKey(database, await readDataDirKey(dataDir)),
    rotate: () => rotateKeys(database),
  }
}

/** The keys in use, newest (current) first; the private halves only when asked. */
export async function readKeys(database: Database, withPrivate: boolean): Promise<StoredKey[]> {
  const rows = await database.db.select({
    generation: signingKeys.generation, kid: signingKeys.kid, publicJwk: signingKeys.publicJwk,
    ...(withPrivate ? { privateJwk: signingKeys.privateJwk } : {}),
  }).from(signingKeys).orderBy(desc(signingKeys.generation)).limit(KEYS_IN_USE)
  return rows
}

/**
 * Makes the first key unless there is one: `imported` (a data directory's key from before keys
 * lived in the database) or a new one. Replicas starting together race on generation 1; one
 * insert wins and every replica reads the winner's key.
 */
export async function ensureFirstKey(database: Database, imported: JWK | undefined): Promise<void> {
  const jwk = imported ?? (await generateSigningJwk())
  const { kid, publicJwk } = await verifyingKeyOf(jwk)
  await database.db.insert(signingKeys).values({ generation: 1, kid, publicJwk, privateJwk: jwk }).onConflictDoNothing()
}

/**
 * Makes a new current key: the generation after the newest. Two rotations at once make one: the
 * later insert finds the generation taken and does nothing. Answers the current kid.
 */
export async function rotateKeys(database: Database): Promise<string> {
  const jwk = await generateSigningJwk()
  const { kid, publicJwk } = await verifyingKeyOf(jwk)
  await database.db.execute(sql`
    insert into ${signingKeys} (generation, kid, public_jwk, private_jwk)
    select coalesce(max(generation), 0) + 1, ${kid}, ${JSON.stringify(publicJwk)}::jsonb, ${JSON.stringify(jwk)}::jsonb from ${signingKeys}
    on conflict do nothing`)
  const [current] = await readKeys(database, false)
  return current!.kid
}
