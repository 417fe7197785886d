/**
 * The all-in-one process SIGKILLed during a burst of writes, then started again on the same data:
 * every acknowledged write is there, and none is applied twice (earns are retried with their keys
 * after the restart, attends again on their day; the totals must be exact), and no trade is left
 * half done once the saga recovery ran (money and items balance). On the backend of the project:
 * embedded (its data directory) or PostgreSQL (a fresh database).
 */
import { randomUUID } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { expect, test } from 'vitest'
import { LEVEL_UP_REWARD, STARTING_AVATAR, experienceRequired } from '../src/contexts/avatar/domain/rules.js'
import { findInCatalog } from '../src/contexts/marketplace/domain/catalog.js'
import { SAGA_LEASE_MS } from '../src/contexts/marketplace/domain/rules.js'
import { RECOVER_SAGAS_JOB } from '../src/contexts/marketplace/index.js'
import { experienceForStreak, REWARD_MONEY } from '../src/contexts/tracking/domain/rules.js'
import { backend } from './support/backends.js'
import { dataPlace, json, startServer as start, stopServer, type Server } from './support/serve-process.js'

const EARNS = 120
const AT_ONCE = 40
const TEST_TIMEOUT_MS = 180_000

const killed = (s: Server) => stopServer(s, 'SIGKILL')

test(`SIGKILL during ${EARNS} batched earns: every acknowledged earn survives, none is applied twice`, async ({ onTestFinished }) => {
  const place = await dataPlace('crash')
  let server: Server | undefined
  onTestFinished(async () => {
    if (server) await killed(server)
    await place.cleanup()
  })
  server = await start(place.env)

  const account = { name: 'Crash', email: `crash-${Date.now()}@example.com`, password: 'crash test password' }
  const reg = await json(`${server.url}/auth/register`, { method: 'POST', body: JSON.stringify(account) })
  expect(reg.status).toBe(200)
  const avatarId = reg.body.userId as string
  let token = reg.body.token as string
  const earn = (base: string, i: number) =>
    json(`${base}/api/v1/avatars/${avatarId}/money/earn`, { method: 'POST', token, key: `crash-${i}`, body: JSON.stringify({ amount: i + 1 }) })

  // Earns go AT_ONCE at a time; the process is killed once a third of them were acknowledged.
  const acknowledged = new Set<number>()
  let next = 0
  const worker = async () => {
    while (next < EARNS) {
      const i = next++
      const r = await earn(server!.url, i).catch(() => undefined)
      if (r?.status === 204) acknowledged.add(i)
      if (acknowledged.size >= EARNS / 3) await killed(server!)
    }
  }
  await Promise.all(Array.from({ length: AT_ONCE }, worker))
  expect(acknowledged.size).toBeGreaterThanOrEqual(EARNS / 3)
  expect(acknowledged.size).toBeLessThan(EARNS)

  server = await start(place.env)
  const login = await json(`${server.url}/auth/login`, { method: 'POST', body: JSON.stringify({ email: account.email, password: account.password }) })
  token = login.body.token as string
  const amount = async () => (await json(`${server.url}/api/v1/avatars/${avatarId}/money`, { token })).body.amount as number
  const sum = (ids: Iterable<number>) => [...ids].reduce((n, i) => n + i + 1, 0)

  const afterRestart = await amount()
  expect(afterRestart).toBeGreaterThanOrEqual(100 + sum(acknowledged))
  // Every earn again, with its key: those applied before the kill answer as before and add nothing.
  const retried = await Promise.all(Array.from({ length: EARNS }, (_, i) => earn(server.url, i)))
  expect(retried.map((r) => r.status).filter((s) => s !== 204)).toEqual([])
  expect(await amount()).toBe(100 + sum(Array.from({ length: EARNS }, (_, i) => i)))
}, TEST_TIMEOUT_MS)

const HABITS = 30
const BUYS = 30
const MIXED_EARNS = 60
const ITEM = 'Rusty Shortsword'
const PRICE = findInCatalog(ITEM)!.price

test('SIGKILL during a burst of earns, attends and buys, a restart over a lock naming a live pid: every acknowledged write is there once, no trade half done', async ({ onTestFinished }) => {
  const place = await dataPlace('crash-mixed')
  let server: Server | undefined
  onTestFinished(async () => {
    if (server) await killed(server)
    await place.cleanup()
  })
  const controls = ['--test-controls']
  // A PostgreSQL relay's claim may be a live replica's: the restarted one waits for it to run out.
  const env = { ...place.env, ...(backend() === 'postgres' ? { OUTBOX_LEASE_SECONDS: '2' } : {}) }
  server = await start(env, controls)
  const control = (what: string, body: unknown = {}) => json(`${server!.url}/_test/${what}`, { method: 'POST', body: JSON.stringify(body) })
  const at = new Date()
  await control('clock', { now: at.toISOString() })
  const date = at.toISOString().slice(0, 19)

  const account = { name: 'Crash', email: `crash-${randomUUID()}@example.com`, password: 'crash test password' }
  const reg = await json(`${server.url}/auth/register`, { method: 'POST', body: JSON.stringify(account) })
  const avatarId = reg.body.userId as string
  let token = reg.body.token as string
  const call = (method: string, p: string, body?: unknown, key?: string) =>
    json(`${server!.url}${p}`, { method, token, ...(key ? { key } : {}), ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const marketplace = (await call('POST', '/api/v1/marketplaces', { avatarId })).body.id as string
  const habits: string[] = []
  for (let i = 0; i < HABITS; i++) habits.push((await call('POST', '/api/v1/habits', { avatarId, title: `habit ${i}`, recurrenceType: 'DAILY' })).body.id as string)
  expect((await call('POST', `/api/v1/avatars/${avatarId}/money/earn`, { amount: BUYS * PRICE }, 'crash-mixed-funds')).status).toBe(204)

  const writes = [
    ...Array.from({ length: MIXED_EARNS }, (_, i) => () => call('POST', `/api/v1/avatars/${avatarId}/money/earn`, { amount: i + 1 }, `crash-mixed-${i}`)),
    ...habits.map((h) => () => call('POST', `/api/v1/habits/${h}/attend`, { date })),
    ...Array.from({ length: BUYS }, () => () => call('POST', `/api/v1/marketplaces/${marketplace}/items/${encodeURIComponent(ITEM)}/buy`)),
  ].sort(() => Math.random() - 0.5)
  let acknowledged = 0
  let next = 0
  const worker = async () => {
    while (next < writes.length) {
      const r = await writes[next++]!().catch(() => undefined)
      if (r && r.status < 300) acknowledged++
      if (acknowledged >= writes.length / 3) await killed(server!)
    }
  }
  await Promise.all(Array.from({ length: AT_ONCE }, worker))
  expect(acknowledged).toBeLessThan(writes.length)

  // The crashed process's lock now names a live process that did not write it (pid reuse).
  if (backend() === 'embedded') await writeFile(path.join(place.dataDir, 'questline.lock'), JSON.stringify({ pid: process.pid, start: '1' }))
  server = await start(env, controls)
  token = (await json(`${server.url}/auth/login`, { method: 'POST', body: JSON.stringify({ email: account.email, password: account.password }) })).body.token as string
  // Every earn and attend again (keys; one attend a day), then the sagas' leases run out and recovery settles them.
  for (const i of Array.from({ length: MIXED_EARNS }, (_, n) => n)) {
    expect((await call('POST', `/api/v1/avatars/${avatarId}/money/earn`, { amount: i + 1 }, `crash-mixed-${i}`)).status).toBe(204)
  }
  for (const h of habits) {
    const again = await call('POST', `/api/v1/habits/${h}/attend`, { date })
    if (again.status >= 300) expect(again.body.type).toBe('/problems/window-already-completed')
  }
  await control('clock', { now: new Date(at.getTime() + 10 * SAGA_LEASE_MS).toISOString() })
  await control(`jobs/${RECOVER_SAGAS_JOB}`)
  await control('settle')

  for (const h of habits) expect((await call('GET', `/api/v1/habits/${h}`)).body.lastAttendedDate).toBe(date)
  const levelNow = async () => (await call('GET', `/api/v1/avatars/${avatarId}/level`)).body as { levelNumber: number; currentExperience: number }
  const experienceOf = (level: { levelNumber: number; currentExperience: number }) => {
    let experience = level.currentExperience
    for (let l = 1; l < level.levelNumber; l++) experience += experienceRequired(l)
    return experience
  }
  // Rewards the crashed relay had claimed: embedded, released at start; on PostgreSQL, once their lease runs out.
  await expect.poll(async () => experienceOf(await levelNow()), { timeout: 10_000 }).toBe(HABITS * experienceForStreak(1))
  const level = await levelNow()
  const avatar = (await call('GET', `/api/v1/avatars/${avatarId}`)).body as { money: { amount: number }; inventory: { items: { name: string }[] } }
  const bought = avatar.inventory.items.filter((i) => i.name === ITEM).length
  const earned = BUYS * PRICE + (MIXED_EARNS * (MIXED_EARNS + 1)) / 2
  expect(avatar.money.amount).toBe(STARTING_AVATAR.money + earned + HABITS * REWARD_MONEY + (level.levelNumber - 1) * LEVEL_UP_REWARD.money - bought * PRICE)
}, TEST_TIMEOUT_MS)
