import { expect, test } from 'vitest'
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
