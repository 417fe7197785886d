import type { JWK } from 'jose'
import { describe, expect, test } from 'vitest'
import { KEY_LOOKUP_INTERVAL_MS, KeyRing, KeysConfigured } from './key-ring.js'
import type { KeyStore, StoredKey } from './key-store.js'
import { generateSigningJwk, verifyingKeyOf } from './keys.js'

/** A key store in memory that counts its reads and what they asked for. */
function memoryStore() {
  const keys: StoredKey[] = []
  const reads: boolean[] = []
  const add = async () => {
    const jwk = await generateSigningJwk()
    const { kid, publicJwk } = await verifyingKeyOf(jwk)
    keys.unshift({ generation: keys.length + 1, kid, publicJwk, privateJwk: jwk })
    return kid
  }
  const store: KeyStore = {
    read: async (withPrivate) => {
      reads.push(withPrivate)
      return keys.slice(0, 2).map(({ privateJwk, ...k }) => (withPrivate ? { ...k, privateJwk } : k))
    },
    makeFirst: async () => void (keys.length === 0 && (await add())),
    rotate: add,
  }
  return { store, reads, add, kids: () => keys.map((k) => k.kid) }
}

describe('a ring of stored keys', () => {
  test('an issuer makes the first key and signs with it; a verifier reads only public keys and cannot sign', async () => {
    const { store, reads, kids } = memoryStore()
    const issuer = KeyRing.stored(store, { canSign: true })
    await issuer.start()
    expect(issuer.signing().kid).toBe(kids()[0])
    const verifier = KeyRing.stored(store, { canSign: false })
    await verifier.start()
    expect(reads.at(-1)).toBe(false)
    expect(() => verifier.signing()).toThrow(/holds no private key/)
    expect(verifier.jwks.keys.map((k) => k.kid)).toEqual(kids())
    expect(verifier.jwks.keys[0]!.d).toBeUndefined()
    await Promise.all([issuer.close(), verifier.close()])
  })

  test('rotation signs with the new key, publishes it and the previous one, and drops the one before', async () => {
    const { store, kids } = memoryStore()
    const ring = KeyRing.stored(store, { canSign: true })
    await ring.start()
    const first = kids()[0]
    const second = await ring.rotate()
    expect(ring.signing().kid).toBe(second)
    expect(ring.jwks.keys.map((k) => k.kid)).toEqual([second, first])
    const third = await ring.rotate()
    expect(ring.jwks.keys.map((k) => k.kid)).toEqual([third, second])
    await ring.close()
  })

  test('an unknown kid reads the keys again, once for a flood of them, and finds a key made meanwhile', async () => {
    const { store, reads, add } = memoryStore()
    await store.makeFirst()
    const ring = KeyRing.stored(store, { canSign: false })
    await ring.start()
    const readsAtStart = reads.length
    const madeLater = await add()
    const startedAt = performance.now()
    const flood = await Promise.all(Array.from({ length: 50 }, (_, i) => ring.verifying(`made-up-${i}`)))
    expect(flood.every((k) => k === undefined)).toBe(true)
    expect(reads.length - readsAtStart).toBe(1)
    // The same read taught it the key made meanwhile: no further read for it.
    expect(await ring.verifying(madeLater)).toBeDefined()
    expect(reads.length - readsAtStart).toBe(1)
    // The next unknown kid waits for the interval rather than reading at once.
    await ring.verifying('another')
    expect(reads.length - readsAtStart).toBe(2)
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(KEY_LOOKUP_INTERVAL_MS - 50)
    await ring.close()
  })
})

describe('a configured ring', () => {
  test('signs with the configured key, publishes the previous public keys, and refuses to rotate', async () => {
    const [current, previous] = [await generateSigningJwk(), await generateSigningJwk()]
    const ring = await KeyRing.configured(JSON.stringify(current), [previous as JWK])
    const [currentKid, previousKid] = [(await verifyingKeyOf(current)).kid, (await verifyingKeyOf(previous)).kid]
    expect(ring.signing().kid).toBe(currentKid)
    expect(ring.jwks.keys.map((k) => k.kid)).toEqual([currentKid, previousKid])
    expect(ring.jwks.keys.every((k) => k.d === undefined)).toBe(true)
    expect(await ring.verifying(previousKid)).toBeDefined()
    await expect(ring.rotate()).rejects.toBeInstanceOf(KeysConfigured)
    const verifier = await KeyRing.configured(JSON.stringify(current), [], { canSign: false })
    expect(verifier.canSign).toBe(false)
    expect(() => verifier.signing()).toThrow(/holds no private key/)
  })
})
