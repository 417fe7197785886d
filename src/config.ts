/**
 * Every setting of the platform, read from the environment once and validated here.
 * Nothing else reads process.env.
 */
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { WEBHOOK_TIMEOUT_MS } from './contexts/live/domain/rules.js'
import { CHAT_RETENTION_DAYS_DEFAULT } from './contexts/guild/domain/rules.js'
import { defaultBackupDir, isWithin, scheduleProblem } from './operator/backup-schedule.js'

export type EconomyMode = 'open' | 'authoritative'

export interface Config {
  port: number
  host: string
  /**
   * The proxies whose `X-Forwarded-For` is believed (`TRUST_PROXY`: addresses and CIDRs); empty
   * trusts nobody, and the client's address is the peer's.
   */
  trustProxy: string[]
  /** Set, `/metrics` is served on a listener of its own on this port (0: any free one), not on `port` (`METRICS_PORT`). */
  metricsPort: number | undefined
  /** Where that listener binds (`METRICS_HOST`, default `host`). */
  metricsHost: string
  /** How often the values of /metrics that take a query are read in the background; a scrape answers the last reading (`METRICS_SAMPLE_SECONDS`). */
  metricsSampleSeconds: number
  dataDir: string
  /** PostgreSQL connection string; unset means the embedded database in dataDir. */
  databaseUrl: string | undefined
  /** NATS server; unset means the in-process event bus. */
  natsUrl: string | undefined
  /** JetStream stream name and subject prefix (`<prefix>.<context>.<EventType>`). */
  natsStream: string
  natsSubjectPrefix: string
  /** How long JetStream waits for a consumer's ack before delivering again (a consumer that died). */
  natsAckWaitSeconds: number
  /** How long a relay's claim on outbox rows lasts; rows claimed by a process that died wait this long. */
  outboxLeaseSeconds: number
  /** Whether this process runs the periodic jobs (missed habits, …). */
  jobsEnabled: boolean
  economyMode: EconomyMode
  logLevel: string
  /** Ed25519 private key as a JWK JSON string; unset, the keys live in the database (`platform.signing_keys`). */
  jwtPrivateKey: string | undefined
  /** With jwtPrivateKey: older public keys (JWKs) still accepted and published, so a rotation of the configured key logs nobody out. */
  jwtPreviousPublicKeys: Record<string, unknown>[]
  /**
   * The edge's published keys (`http://edge:8080/auth/jwks.json`, split services): set, the process
   * also accepts access tokens signed with a key it does not hold, verified from that JWKS (fetched
   * when first needed, cached).
   */
  jwksUrl: string | undefined
  jwtIssuer: string
  jwtAudience: string
  accessTokenTtlSeconds: number
  refreshTokenTtlSeconds: number
  /** Failed logins allowed per email / per client address within the window before 429. */
  loginMaxFailuresPerEmail: number
  loginMaxFailuresPerAddress: number
  loginFailureWindowSeconds: number
  /** Size of the PostgreSQL connection pool. */
  databasePoolSize: number
  /**
   * Where the contexts this process does not serve run (split services): context → base URLs
   * (`UPSTREAM_<CONTEXT>`, comma-separated, any context name). The process forwards their routes there.
   */
  upstreams: Record<string, string[] | undefined>
  /**
   * This process's base URL as its peers list it in `UPSTREAM_<its context>` (`ADVERTISE_URL`,
   * default `http://HOST:PORT`): a replica finds itself there to know which partitions it owns.
   */
  advertiseUrl: string
  /** Replicas per context that `npm run start:split` starts (`REPLICAS_<CONTEXT>`; a context not named: 1). */
  replicas: Record<string, number | undefined>
  /**
   * The avatar service's base URL (`http://avatar:8080`); set, the marketplace calls the avatar
   * over HTTP with service tokens instead of in-process.
   */
  avatarUrl: string | undefined
  /**
   * Each call of one context to another over HTTP (split services) is abandoned after this long
   * (`SERVICE_CALL_TIMEOUT_MS`; the older name `AVATAR_TIMEOUT_MS` still works).
   */
  serviceCallTimeoutMs: number
  /**
   * Further attempts after a network failure, timeout or 5xx of such a call (`SERVICE_CALL_RETRIES`;
   * the older name `AVATAR_RETRIES` still works).
   */
  serviceCallRetries: number
  /** The built player web app the edge serves at `/` (`npm run build:web` writes it). */
  webDir: string
  /**
   * Days that rows past their use are kept before the retention job deletes them: published
   * outbox events, inbox records, settled sagas and registrations, idempotency keys (`RETENTION_DAYS`).
   */
  retentionDays: number
  /** Days a guild chat message is kept before the retention job deletes it (`CHAT_RETENTION_DAYS`). */
  chatRetentionDays: number
  /**
   * How often a live stream gets a comment line, and is ended when its token has expired or was
   * revoked (`STREAM_HEARTBEAT_MS`).
   */
  streamHeartbeatMs: number
  /**
   * Whether webhook endpoints may be on loopback, private, link-local or unique-local addresses
   * (`WEBHOOK_ALLOW_PRIVATE`, default false: a player could otherwise make the server call into its
   * own network). For tests and a platform on a home network.
   */
  webhookAllowPrivate: boolean
  /** A webhook attempt not answered within this long has failed (`WEBHOOK_TIMEOUT_MS`). */
  webhookTimeoutMs: number
  /** How long a process told to stop (SIGTERM) may take to finish what it holds before it cuts the rest (`DRAIN_TIMEOUT_MS`). */
  drainTimeoutMs: number
  /** When the embedded server backs itself up (`BACKUP_SCHEDULE`, cron syntax read in UTC); unset: never on its own. */
  backupSchedule: string | undefined
  /** Where scheduled backups are written (`BACKUP_DIR`, default `<DATA_DIR>-backups`); never inside the data directory. */
  backupDir: string
  /** How many scheduled backups are kept; older ones are removed after each new one (`BACKUP_KEEP`). */
  backupKeep: number
}

function urlList(env: Env, name: string): string[] | undefined {
  const raw = optional(env, name)
  if (raw === undefined) return undefined
  const urls = raw.split(',').map((u) => u.trim().replace(/\/+$/, '')).filter((u) => u !== '')
  for (const u of urls) {
    if (!/^https?:\/\/[^/\s]+$/.test(u)) throw new ConfigError(`${name} must list base URLs like http://127.0.0.1:4001, got '${u}'.`)
  }
  return urls.length > 0 ? urls : undefined
}

/** Addresses and CIDRs (`10.0.0.0/8`, `::1`), comma-separated; an entry that is neither is refused by name. */
function addressList(env: Env, name: string): string[] {
  const entries = (optional(env, name) ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '')
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/')
    const family = isIP(address)
    const bits = family === 4 ? 32 : 128
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits)
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError(`${name} must list IP addresses or CIDRs (10.0.0.0/8, ::1), got '${entry}'.`)
    }
  }
  return entries
}

/** `<PREFIX>_<CONTEXT>` settings by context name (lower-cased), read with `read`. */
function perContext<T>(env: Env, prefix: string, read: (name: string) => T | undefined): Record<string, T | undefined> {
  const out: Record<string, T | undefined> = {}
  for (const name of Object.keys(env)) {
    const m = new RegExp(`^${prefix}_([A-Z]+)$`).exec(name)
    if (m) out[m[1]!.toLowerCase()] = read(name)
  }
  return out
}

/** Where `npm run build:web` writes the player web app. */
const DEFAULT_WEB_DIR = fileURLToPath(new URL('../web/dist', import.meta.url))

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'.`)
  }
  return value
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got '${raw}'.`)
  }
  return raw as T
}

function optional(env: Env, name: string): string | undefined {
  const raw = env[name]
  return raw === undefined || raw === '' ? undefined : raw
}

/** The setting's name, or its older name when only that one is set. */
function renamed(env: Env, name: string, olderName: string): string {
  return optional(env, name) === undefined && optional(env, olderName) !== undefined ? olderName : name
}

function httpUrl(env: Env, name: string): string | undefined {
  const url = optional(env, name)
  if (url && !/^https?:\/\/[^/]/.test(url)) throw new ConfigError(`${name} must be an http:// or https:// URL, got '${url}'.`)
  return url
}

/** The contents of the file the setting names, without its final line break (Docker and Kubernetes mount secrets as files). */
function fileContents(env: Env, name: string): string | undefined {
  const file = optional(env, name)
  if (file === undefined) return undefined
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '')
  } catch (e) {
    throw new ConfigError(`${name} names ${file}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}).`)
  }
}

/** A secret: the setting itself, or the contents of the file `<NAME>_FILE` names. Both set is refused: which wins would be a guess. */
function secret(env: Env, name: string): string | undefined {
  const value = optional(env, name)
  const fromFile = fileContents(env, `${name}_FILE`)
  if (fromFile === undefined) return value
  if (value !== undefined) throw new ConfigError(`Set ${name} or ${name}_FILE, not both.`)
  return fromFile
}

/** DATABASE_URL with the password of `DATABASE_PASSWORD_FILE` in it, when that is set. */
function databaseUrlOf(env: Env): string | undefined {
  const databaseUrl = optional(env, 'DATABASE_URL')
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://.`)
  }
  const password = fileContents(env, 'DATABASE_PASSWORD_FILE')
  if (password === undefined) return databaseUrl
  if (!databaseUrl) throw new ConfigError('DATABASE_PASSWORD_FILE is the password of DATABASE_URL, which is unset.')
  const url = new URL(databaseUrl)
  if (url.password !== '') throw new ConfigError('DATABASE_URL holds a password already; leave DATABASE_PASSWORD_FILE unset.')
  url.password = encodeURIComponent(password)
  return url.toString()
}

/** A JSON array of JWK objects. */
function jwkList(env: Env, name: string): Record<string, unknown>[] {
  const raw = optional(env, name)
  if (raw === undefined) return []
  let list: unknown
  try {
    list = JSON.parse(raw)
  } catch {
    list = undefined
  }
  if (!Array.isArray(list) || !list.every((k) => typeof k === 'object' && k !== null && !Array.isArray(k))) {
    throw new ConfigError(`${name} must be a JSON array of public JWKs, e.g. [{"kty":"OKP","crv":"Ed25519","x":"…"}].`)
  }
  return list as Record<string, unknown>[]
}

/** BACKUP_SCHEDULE, checked: a cron pattern, and only for the embedded database. */
function backupScheduleOf(env: Env, databaseUrl: string | undefined): string | undefined {
  const schedule = optional(env, 'BACKUP_SCHEDULE')?.trim()
  if (schedule === undefined) return undefined
  const problem = scheduleProblem(schedule)
  if (problem) throw new ConfigError(`BACKUP_SCHEDULE must be a cron schedule such as "0 3 * * *" (03:00 UTC daily), got '${schedule}': ${problem}.`)
  if (databaseUrl) {
    throw new ConfigError('BACKUP_SCHEDULE is for the embedded database; with DATABASE_URL set the data is in PostgreSQL: '
      + 'schedule pg_dump instead (docs/operations.md#backups), and leave BACKUP_SCHEDULE unset.')
  }
  return schedule
}

/** BACKUP_DIR, outside the data directory: a restore replaces what is there, and losing the directory would lose both. */
function backupDirOf(env: Env, dataDir: string): string {
  const dir = path.resolve(optional(env, 'BACKUP_DIR') ?? defaultBackupDir(dataDir))
  if (isWithin(dataDir, dir)) {
    throw new ConfigError(`BACKUP_DIR (${dir}) must lie outside DATA_DIR (${dataDir}): backups kept with the data are lost with it. Name a directory on another volume, or beside DATA_DIR.`)
  }
  return dir
}

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = databaseUrlOf(env)
  const dataDir = path.resolve(optional(env, 'DATA_DIR') ?? './data')
  const avatarUrl = httpUrl(env, 'AVATAR_URL')
  const jwksUrl = httpUrl(env, 'JWKS_URL')
  const port = integer(env, 'PORT', 8080, 0, 65535)
  const host = optional(env, 'HOST') ?? '127.0.0.1'
  return {
    port,
    host,
    trustProxy: addressList(env, 'TRUST_PROXY'),
    metricsPort: optional(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535),
    metricsHost: optional(env, 'METRICS_HOST') ?? host,
    metricsSampleSeconds: integer(env, 'METRICS_SAMPLE_SECONDS', 15, 1, 3600),
    dataDir,
    databaseUrl,
    natsUrl: optional(env, 'NATS_URL'),
    natsStream: optional(env, 'NATS_STREAM') ?? 'QUESTLINE',
    natsSubjectPrefix: optional(env, 'NATS_SUBJECT_PREFIX') ?? 'questline',
    natsAckWaitSeconds: integer(env, 'NATS_ACK_WAIT_SECONDS', 10, 1, 3600),
    outboxLeaseSeconds: integer(env, 'OUTBOX_LEASE_SECONDS', 30, 1, 3600),
    jobsEnabled: oneOf(env, 'JOBS_ENABLED', ['true', 'false'] as const, 'true') === 'true',
    economyMode: oneOf(env, 'ECONOMY_MODE', ['open', 'authoritative'] as const, 'open'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    jwtPrivateKey: secret(env, 'JWT_PRIVATE_KEY'),
    jwtPreviousPublicKeys: jwkList(env, 'JWT_PREVIOUS_PUBLIC_KEYS'),
    jwksUrl,
    jwtIssuer: optional(env, 'JWT_ISSUER') ?? 'questline',
    jwtAudience: optional(env, 'JWT_AUDIENCE') ?? 'questline',
    accessTokenTtlSeconds: integer(env, 'ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 86_400),
    refreshTokenTtlSeconds: integer(env, 'REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 3600, 365 * 86_400),
    loginMaxFailuresPerEmail: integer(env, 'LOGIN_MAX_FAILURES_PER_EMAIL', 5, 1, 1000),
    loginMaxFailuresPerAddress: integer(env, 'LOGIN_MAX_FAILURES_PER_ADDRESS', 30, 1, 100_000),
    loginFailureWindowSeconds: integer(env, 'LOGIN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    upstreams: perContext(env, 'UPSTREAM', (name) => urlList(env, name)),
    advertiseUrl: (httpUrl(env, 'ADVERTISE_URL') ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    replicas: perContext(env, 'REPLICAS', (name) => integer(env, name, 1, 1, 16)),
    avatarUrl,
    serviceCallTimeoutMs: integer(env, renamed(env, 'SERVICE_CALL_TIMEOUT_MS', 'AVATAR_TIMEOUT_MS'), 2000, 10, 60_000),
    serviceCallRetries: integer(env, renamed(env, 'SERVICE_CALL_RETRIES', 'AVATAR_RETRIES'), 2, 0, 10),
    webDir: path.resolve(optional(env, 'WEB_DIR') ?? DEFAULT_WEB_DIR),
    retentionDays: integer(env, 'RETENTION_DAYS', 7, 1, 3650),
    chatRetentionDays: integer(env, 'CHAT_RETENTION_DAYS', CHAT_RETENTION_DAYS_DEFAULT, 1, 3650),
    streamHeartbeatMs: integer(env, 'STREAM_HEARTBEAT_MS', 15_000, 100, 300_000),
    webhookAllowPrivate: oneOf(env, 'WEBHOOK_ALLOW_PRIVATE', ['true', 'false'] as const, 'false') === 'true',
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', WEBHOOK_TIMEOUT_MS, 100, 60_000),
    drainTimeoutMs: integer(env, 'DRAIN_TIMEOUT_MS', 25_000, 100, 600_000),
    backupSchedule: backupScheduleOf(env, databaseUrl),
    backupDir: backupDirOf(env, dataDir),
    backupKeep: integer(env, 'BACKUP_KEEP', 7, 1, 10_000),
  }
}

/** The process's settings, with command-line overrides on top. */
export const loadConfigFromEnvironment = (overrides: Env = {}): Config => loadConfig({ ...process.env, ...overrides })
