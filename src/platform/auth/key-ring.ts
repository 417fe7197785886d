import type { CryptoKey, JWK } from 'jose'
import type { Logger } from '../log.js'
import type { KeyStore, StoredKey } from './key-store.js'
import { generateSigningJwk, signingKeysOf, type SigningKeys, verifyingKeyOf, type VerifyingKey } from './keys.js'

/** How often a process reads the stored keys again: a rotation reaches every issuer within this. */
export const KEY_REFRESH_MS = 5000
/**
 * A token with a kid the process does not know makes it read the keys again, at most this often:
 * a flood of made-up kids costs the database one read per process per interval. Such a token
 * waits for the next read rather than being refused, so a key made a moment ago is always found.
 */
export const KEY_LOOKUP_INTERVAL_MS = 1000

/** `keys rotate` on a platform whose key is configured: there is nothing in the database to rotate. */
export class KeysConfigured extends Error {
  constructor() {
    super('JWT_PRIVATE_KEY is set: the signing key is configured, not kept in the database. To rotate it, set JWT_PREVIOUS_PUBLIC_KEYS '
      + 'to the old key\'s public JWK (a JSON array) and JWT_PRIVATE_KEY to a new private JWK on every process, then drop the old one from '
      + 'JWT_PREVIOUS_PUBLIC_KEYS once its tokens have expired (see docs/operations.md#signing-keys).')
  }
}

interface RingOptions {
  /** Whether the process issues tokens (serves the edge, or calls another context over HTTP): only then does it hold a private key. */
  canSign: boolean
  log?: Logger | undefined
}

/**
 * The keys a process signs and verifies access tokens with: the current key (which signs, on
 * processes that issue tokens) and the previous ones still published in the JWKS. Either fixed
 * by configuration, or kept in the database and read again every KEY_REFRESH_MS and when a token
 * names an unknown kid.
 */
export class KeyRing {
  private known: VerifyingKey[] = []
  private current: SigningKeys | undefined
  private readonly imported = new Map<string, Promise<VerifyingKey | SigningKeys>>()
  private timer: NodeJS.Timeout | undefined
  private reading: Promise<void> | undefined
  private lastReadAt = Number.NEGATIVE_INFINITY
  /** A lookup read not begun yet, which every unknown kid arriving meanwhile waits for. */
  private nextLookup: Promise<void> | undefined

  private constructor(
    readonly canSign: boolean,
    private readonly store: KeyStore | undefined,
    private readonly log: Logger | undefined,
  ) {}

  /** The configured key (`JWT_PRIVATE_KEY`; unset, a fresh key in memory) and older public keys still accepted. */
  static async configured(privateJwk: string | undefined, previousPublicJwks: JWK[] = [], opts: RingOptions = { canSign: true }): Promise<KeyRing> {
    const ring = new KeyRing(opts.canSign, undefined, opts.log)
    const jwk = privateJwk ? (JSON.parse(privateJwk) as JWK) : await generateSigningJwk()
    await ring.learn([{ publicJwk: jwk, privateJwk: jwk }, ...previousPublicJwks.map((publicJwk) => ({ publicJwk }))])
    return ring
  }

  /** Keys kept in a store (the database: `databaseKeyStore`), loaded by `start()`. */
  static stored(store: KeyStore, opts: RingOptions): KeyRing {
    return new KeyRing(opts.canSign, store, opts.log)
  }

  /** The key new tokens are signed with. */
  signing(): SigningKeys {
    if (!this.canSign) throw new Error('This process issues no tokens: it holds no private key.')
    if (!this.current) throw new Error('The signing keys are not loaded yet (start the platform first).')
    return this.current
  }

  /** The public keys, current first, as `/auth/jwks.json` serves them. */
  get jwks(): { keys: JWK[] } {
    return { keys: this.known.map((k) => k.publicJwk) }
  }

  /** The public key for a token's kid (no kid: the current key's), or undefined when none is known. */
  async verifying(kid: string | undefined): Promise<CryptoKey | undefined> {
    if (kid === undefined) return this.known[0]?.publicKey
    const held = this.known.find((k) => k.kid === kid)
    if (held || !this.store) return held?.publicKey
    await this.lookup()
    return this.known.find((k) => k.kid === kid)?.publicKey
  }

  /** Loads the stored keys (making the first one if an issuer finds none), then reads them again every KEY_REFRESH_MS. */
  async start(): Promise<void> {
    if (!this.store) return
    await this.read()
    if (this.canSign && !this.current) {
      await this.store.makeFirst()
      await this.read()
    }
    this.timer = setInterval(() => void this.refreshInBackground(), KEY_REFRESH_MS)
    this.timer.unref()
  }

  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.reading?.catch(() => undefined)
  }

  /** Makes a new current key in the database and signs with it at once; answers its kid. */
  async rotate(): Promise<string> {
    if (!this.store) throw new KeysConfigured()
    const kid = await this.store.rotate()
    await this.read()
    return kid
  }

  private async refreshInBackground(): Promise<void> {
    try {
      await this.read()
    } catch (e) {
      this.log?.warn({ err: e }, 'reading the signing keys failed; will retry')
    }
  }

  /**
   * Waits for a read that begins after this call (one under way may have begun before the key
   * was made), no sooner than KEY_LOOKUP_INTERVAL_MS after the last one; callers meanwhile share it.
   */
  private lookup(): Promise<void> {
    this.nextLookup ??= (async () => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, this.lastReadAt + KEY_LOOKUP_INTERVAL_MS - performance.now())))
      while (this.reading) await this.reading.catch(() => undefined)
      this.nextLookup = undefined
      await this.read()
    })()
    return this.nextLookup
  }

  private async read(): Promise<void> {
    while (this.reading) await this.reading.catch(() => undefined)
    this.lastReadAt = performance.now()
    this.reading = this.store!.read(this.canSign).then((rows) => this.learn(rows)).finally(() => {
      this.reading = undefined
    })
    await this.reading
  }

  /** Takes `keys` (newest first) as the ring; the private half of the newest signs when this process may sign. */
  private async learn(keys: Pick<StoredKey, 'publicJwk' | 'privateJwk'>[]): Promise<void> {
    const loaded = await Promise.all(keys.map((k, i) => this.imports(i === 0 && this.canSign ? k.privateJwk : undefined, k.publicJwk)))
    this.known = loaded
    // Keys no longer in use are forgotten with their imports.
    const ids = new Set(keys.map((k, i) => this.importId(i === 0 && this.canSign ? k.privateJwk : undefined, k.publicJwk)))
    for (const id of this.imported.keys()) if (!ids.has(id)) this.imported.delete(id)
    const newest = loaded[0]
    this.current = newest && 'privateKey' in newest ? newest : undefined
  }

  private importId(privateJwk: JWK | undefined, publicJwk: JWK): string {
    return `${privateJwk ? 'private' : 'public'}:${publicJwk.x}`
  }

  /** Imports a JWK once per kid: a refresh that finds the same keys costs no crypto. */
  private imports(privateJwk: JWK | undefined, publicJwk: JWK): Promise<VerifyingKey | SigningKeys> {
    const id = this.importId(privateJwk, publicJwk)
    let key = this.imported.get(id)
    if (!key) {
      key = privateJwk ? signingKeysOf(privateJwk) : verifyingKeyOf(publicJwk)
      this.imported.set(id, key)
      key.catch(() => this.imported.delete(id))
    }
    return key
  }
}
