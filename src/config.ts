/**
 * Every setting of the platform, read from the environment once and validated here.
 * Nothing else reads process.env.
 */
import path from 'node:path'

export type EconomyMode = 'open' | 'authoritative'

export interface Config {
  port: number
  host: string
  dataDir: string
  /** PostgreSQL connection string; unset means the embedded database in dataDir. */
  databaseUrl: string | undefined
  /** NATS server; unset means the in-process event bus. */
  natsUrl: string | undefined
  /** JetStream stream name and subject prefix (`<prefix>.<context>.<EventType>`). */
  natsStream: string
  natsSubjectPrefix: string
  /** Whether this process runs the periodic jobs (missed habits, …). */
  jobsEnabled: boolean
  economyMode: EconomyMode
  logLevel: string
  /** Ed25519 private key as a JWK JSON string; unset means one is generated into dataDir. */
  jwtPrivateKey: string | undefined
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
}

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

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = optional(env, 'DATABASE_URL')
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://.`)
  }
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: optional(env, 'HOST') ?? '127.0.0.1',
    dataDir: path.resolve(optional(env, 'DATA_DIR') ?? './data'),
    databaseUrl,
    natsUrl: optional(env, 'NATS_URL'),
    natsStream: optional(env, 'NATS_STREAM') ?? 'QUESTLINE',
    natsSubjectPrefix: optional(env, 'NATS_SUBJECT_PREFIX') ?? 'questline',
    jobsEnabled: oneOf(env, 'JOBS_ENABLED', ['true', 'false'] as const, 'true') === 'true',
    economyMode: oneOf(env, 'ECONOMY_MODE', ['open', 'authoritative'] as const, 'open'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    jwtPrivateKey: optional(env, 'JWT_PRIVATE_KEY'),
    jwtIssuer: optional(env, 'JWT_ISSUER') ?? 'questline',
    jwtAudience: optional(env, 'JWT_AUDIENCE') ?? 'questline',
    accessTokenTtlSeconds: integer(env, 'ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 86_400),
    refreshTokenTtlSeconds: integer(env, 'REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 3600, 365 * 86_400),
    loginMaxFailuresPerEmail: integer(env, 'LOGIN_MAX_FAILURES_PER_EMAIL', 5, 1, 1000),
    loginMaxFailuresPerAddress: integer(env, 'LOGIN_MAX_FAILURES_PER_ADDRESS', 30, 1, 100_000),
    loginFailureWindowSeconds: integer(env, 'LOGIN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
  }
}

/** The process's settings, with command-line overrides on top. */
export const loadConfigFromEnvironment = (overrides: Env = {}): Config => loadConfig({ ...process.env, ...overrides })
