import { describe, expect, test } from 'vitest'
import { isDatabaseUnavailable } from './unavailable.js'

/** An error as node-postgres raises it: a message and, from the server, a SQLSTATE `code`. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {})
/** As drizzle wraps it. */
const wrapped = (cause: Error) => new Error('Failed query: select 1', { cause })

describe('isDatabaseUnavailable', () => {
  test.each([
    ['too many clients', pgError('sorry, too many clients already', '53300')],
    ['a connection exception class', pgError('connection failure', '08006')],
    ['the server shutting down', pgError('terminating connection due to administrator command', '57P01')],
    ['the server starting', pgError('the database system is starting up', '57P03')],
    ['a refused socket', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a dropped connection', pgError('Connection terminated unexpectedly')],
    ['no free connection in time', pgError('timeout exceeded when trying to connect')],
  ])('%s is unavailability, bare or wrapped by the query builder', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true)
    expect(isDatabaseUnavailable(wrapped(error))).toBe(true)
  })

  test.each([
    ['a unique violation', pgError('duplicate key value violates unique constraint', '23505')],
    ['a serialization failure', pgError('could not serialize access', '40001')],
    ['a syntax error', pgError('syntax error at or near "selec"', '42601')],
    ['a plain error', new Error('boom')],
  ])('%s is not', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false)
    expect(isDatabaseUnavailable(wrapped(error))).toBe(false)
  })

  test('what is not an error is not', () => {
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false)
    expect(isDatabaseUnavailable(undefined)).toBe(false)
  })
})
