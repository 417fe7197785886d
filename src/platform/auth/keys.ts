import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { type CryptoKey, type JWK, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK } from 'jose'

export const SIGNING_ALG = 'EdDSA'

/** A key tokens are verified with; its `kid` is its public JWK's thumbprint. */
export interface VerifyingKey {
  kid: string
  publicKey: CryptoKey
  /** As the JWKS publishes it (no private part). */
  publicJwk: JWK
}

/** A key tokens are signed with: only processes that issue tokens hold one. */
export interface SigningKeys extends VerifyingKey {
  privateKey: CryptoKey
}

function isEd25519(jwk: JWK): boolean {
  return jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string'
}

/** The public half of an Ed25519 JWK, with its kid. */
export async function verifyingKeyOf(jwk: JWK): Promise<VerifyingKey> {
  if (!isEd25519(jwk)) throw new Error('A JWT key must be an Ed25519 JWK (kty OKP, crv Ed25519, with x).')
  const bare: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x }
  const kid = await calculateJwkThumbprint(bare)
  const publicKey = (await importJWK(bare, SIGNING_ALG)) as CryptoKey
  return { kid, publicKey, publicJwk: { ...bare, kid, alg: SIGNING_ALG, use: 'sig' } }
}

export async function signingKeysOf(jwk: JWK): Promise<SigningKeys> {
  if (!isEd25519(jwk) || !jwk.d) {
    throw new Error('The JWT signing key must be an Ed25519 private JWK (kty OKP, crv Ed25519, with d and x).')
  }
  const verifying = await verifyingKeyOf(jwk)
  const privateKey = (await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d }, SIGNING_ALG)) as CryptoKey
  return { ...verifying, privateKey }
}

export async function generateSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { crv: 'Ed25519', extractable: true })
  return exportJWK(privateKey)
}

/** Where a data directory kept its signing key before keys lived in the database. */
export const dataDirKeyFile = (dataDir: string) => path.join(dataDir, 'keys', 'jwt-ed25519.json')

/** The private JWK a data directory holds, if any: imported into the database so its tokens stay valid. */
export async function readDataDirKey(dataDir: string | undefined): Promise<JWK | undefined> {
  if (!dataDir) return undefined
  try {
    return JSON.parse(await readFile(dataDirKeyFile(dataDir), 'utf8')) as JWK
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
}
