import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ConfigError, loadConfig } from './config.js'

test('TRUST_PROXY lists addresses and CIDRs; unset trusts nobody', () => {
  expect(loadConfig({}).trustProxy).toEqual([])
  expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, 127.0.0.1 ,::1,fd00::/8,' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8'])
})

test.each(['10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/8', '::1/129', '10.0.0/8', '10.0.0.0/'])('TRUST_PROXY refuses %s, naming it', (entry) => {
  expect(() => loadConfig({ TRUST_PROXY: `127.0.0.1,${entry}` })).toThrow(ConfigError)
  expect(() => loadConfig({ TRUST_PROXY: `127.0.0.1,${entry}` })).toThrow(`'${entry}'`)
})

test('METRICS_PORT unset serves /metrics on PORT; set, on its own port at METRICS_HOST, else HOST', () => {
  expect(loadConfig({}).metricsPort).toBeUndefined()
  expect(loadConfig({ METRICS_PORT: '9464', HOST: '0.0.0.0' })).toMatchObject({ metricsPort: 9464, metricsHost: '0.0.0.0' })
  expect(loadConfig({ METRICS_PORT: '9464', HOST: '0.0.0.0', METRICS_HOST: '10.0.0.5' })).toMatchObject({ metricsHost: '10.0.0.5' })
  expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(ConfigError)
})

describe('secrets from files (Docker and Kubernetes secrets)', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ql-config-'))
    writeFileSync(path.join(dir, 'jwk'), '{"kty":"OKP"}\n')
    writeFileSync(path.join(dir, 'password'), 'p@ss:w/o%rd\n')
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('JWT_PRIVATE_KEY_FILE is read without its final line break; with JWT_PRIVATE_KEY too, refused', () => {
    expect(loadConfig({ JWT_PRIVATE_KEY_FILE: path.join(dir, 'jwk') }).jwtPrivateKey).toBe('{"kty":"OKP"}')
    expect(() => loadConfig({ JWT_PRIVATE_KEY_FILE: path.join(dir, 'jwk'), JWT_PRIVATE_KEY: '{}' })).toThrow('Set JWT_PRIVATE_KEY or JWT_PRIVATE_KEY_FILE, not both.')
    expect(() => loadConfig({ JWT_PRIVATE_KEY_FILE: path.join(dir, 'missing') })).toThrow(/JWT_PRIVATE_KEY_FILE names .*missing, which cannot be read \(ENOENT\)/)
  })

  test('DATABASE_PASSWORD_FILE puts the password into DATABASE_URL, encoded so the driver reads it back whole', () => {
    const { databaseUrl } = loadConfig({ DATABASE_URL: 'postgres://questline@db:5432/questline', DATABASE_PASSWORD_FILE: path.join(dir, 'password') })
    expect(decodeURIComponent(new URL(databaseUrl!).password)).toBe('p@ss:w/o%rd')
    expect(new URL(databaseUrl!)).toMatchObject({ username: 'questline', host: 'db:5432', pathname: '/questline' })
    expect(() => loadConfig({ DATABASE_PASSWORD_FILE: path.join(dir, 'password') })).toThrow(ConfigError)
    expect(() => loadConfig({ DATABASE_URL: 'postgres://q:old@db/q', DATABASE_PASSWORD_FILE: path.join(dir, 'password') })).toThrow('holds a password already')
  })
})
