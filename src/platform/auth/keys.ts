import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { type CryptoKey, type JWK, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK } from 'jose'

export const SIGNING_ALG = 'EdDSA'

export interface SigningKeys {
  kid: string
  privateKey: CryptoKey
  publicKey: CryptoKey
  publicJwk: JWK
}

async function fromPrivateJwk(jwk: JWK): Promise<SigningKeys> {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) {
    throw new Error('The JWT signing key must be an Ed25519 private JWK (kty OKP, crv Ed25519, with d and x).')
  }
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x }
  const kid = await calculateJwkThumbprint(publicJwk)
  const privateKey = (await importJWK(jwk, SIGNING_ALG)) as CryptoKey
  const publicKey = (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey
  return { kid, privateKey, publicKey, publicJwk: { ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' } }
}

export async function generateSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { crv: 'Ed25519', extractable: true })
  return exportJWK(privateKey)
}

/**
 * The signing key: from configuration when given, else the one kept in the data dir, made on
 * first start; `undefined` dataDir (tests) keeps a fresh key in memory only.
 */
export async function loadSigningKeys(configured: string | undefined, dataDir: string | undefined): Promise<SigningKeys> {
  if (configured) return fromPrivateJwk(JSON.parse(configured) as JWK)
  if (!dataDir) return fromPrivateJwk(await generateSigningJwk())
  const file = path.join(dataDir, 'keys', 'jwt-ed25519.json')
  try {
    return await fromPrivateJwk(JSON.parse(await readFile(file, 'utf8')) as JWK)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  const jwk = await generateSigningJwk()
  await mkdir(path.dirname(file), { recursive: true })
  // 'wx' so two first starts cannot both write a key; the loser reads the winner's.
  try {
    await writeFile(file, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' })
    return fromPrivateJwk(jwk)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    return fromPrivateJwk(JSON.parse(await readFile(file, 'utf8')) as JWK)
  }
}
