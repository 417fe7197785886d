/**
 * The world a fuzz runs in: an app with three players and one of each thing a path can name (a
 * habit, a marketplace and a sword to sell, a guild with a member, an invite, a quest, a battle),
 * the operations of its /openapi.json, how to read its state through the API, and what is wrong
 * with an answer.
 */
import { expect } from 'vitest'
import { problemTypeSlug } from '../../src/platform/http/problem-types.js'
import { PROBLEM_TYPES } from '../../src/server.js'
import { buildTestApp, type TestApp } from './app.js'
import { inviteTo, joinGuild, newGuild } from './guilds.js'
import { newHabit } from './habits.js'
import { giveItem, marketplaceOf } from './marketplaces.js'
import type { Schema } from './openapi-arbitraries.js'
import { newPlayer, type Player } from './players.js'

export interface Param { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }
export interface Operation {
  key: string
  method: string
  path: string
  params: Param[]
  body?: Schema
  /** The statuses the document lists for it. */
  statuses: number[]
}
type DocOperation = { parameters?: Param[]; requestBody?: { content?: Record<string, { schema: Schema }> }; responses?: Record<string, { content?: Record<string, unknown> }> }

const SWORD = 'Fuzz Sword'
const SHOP_ITEM = 'Rusty Shortsword'

/** What a read of the state answered: url, status and body of each. */
export type Snapshot = [url: string, status: number, body: string][]

export interface FuzzWorld {
  app: TestApp
  /** The paths of the app's /openapi.json, with their operations. */
  paths: Record<string, Record<string, unknown>>
  /** Every operation of the document but streams (whose accepted answer never ends: stream.test.ts refuses them over a socket). */
  operations: Operation[]
  /** The player the requests act as, a guild member of theirs, and a player they invited. */
  a: Player
  b: Player
  c: Player
  /** Real values for path parameters, so requests reach rules and not only the router. */
  pathValues(op: Pick<Operation, 'path'>, name: string): string[]
  /** Real or meaningful values for body and query fields, by name (used when the schema accepts them). */
  knownValues(): Record<string, unknown[]>
  /**
   * The fixture's state as the API shows it: what a refused request must leave as it was. The
   * player's avatar always (rewards, payments and items land there from every context), with
   * what the operation's own context keeps; without an operation, all of it.
   */
  snapshot(op?: Operation): Promise<Snapshot>
}

export async function fuzzWorld(): Promise<FuzzWorld> {
  const app = await buildTestApp()
  const ids = { habit: '', marketplace: '', guild: '', invite: '', quest: '', battle: '' }
  const [a, b, c] = [await newPlayer(app, 'Fuzz Hero'), await newPlayer(app, 'Fuzz Friend'), await newPlayer(app, 'Fuzz Guest')]
  ids.habit = await newHabit(app, a)
  ids.marketplace = await marketplaceOf(app, a)
  await giveItem(app, a, { type: 'WEAPON', name: SWORD, description: 'sharp', power: 5 })
  ids.guild = await newGuild(app, a)
  await joinGuild(app, ids.guild, a, b)
  ids.invite = await inviteTo(app, ids.guild, a, c)
  const quest = await app.inject({
    method: 'POST', url: '/api/v1/quests', headers: a.auth,
    payload: { name: 'Fuzz Quest', habits: [{ habitId: 'stretch', title: 'Stretch', recurrence: { type: 'DAILY' } }] },
  })
  expect(quest.statusCode, quest.body).toBe(200)
  ids.quest = quest.json().id
  const battle = await app.inject({ method: 'POST', url: '/api/v1/battles', headers: a.auth, payload: { guildId: ids.guild, bossType: 'GOBLIN', requesterId: a.avatarId } })
  expect(battle.statusCode, battle.body).toBe(200)
  ids.battle = battle.json().id
  await app.settle()

  const doc: { paths: Record<string, Record<string, DocOperation>> } = (await app.inject({ url: '/openapi.json' })).json()
  const streams = (op: DocOperation) => Object.values(op.responses ?? {}).some((r) => r.content?.['text/event-stream'])
  const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).filter(([, op]) => !streams(op)).map(([method, op]) => ({
    key: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    params: op.parameters ?? [],
    ...(op.requestBody?.content?.['application/json'] ? { body: op.requestBody.content['application/json'].schema } : {}),
    statuses: Object.keys(op.responses ?? {}).map(Number),
  })))

  const pathValues = (op: Pick<Operation, 'path'>, name: string): string[] => {
    if (name === 'id') {
      const byPrefix: [string, string][] = [
        ['/api/v1/avatars/', a.avatarId], ['/api/v1/habits/', ids.habit], ['/api/v1/guilds/', ids.guild], ['/api/v1/battles/', ids.battle],
        ['/api/v1/quests/', ids.quest],
      ]
      return [byPrefix.find(([p]) => op.path.startsWith(p))?.[1] ?? a.avatarId]
    }
    const byName: Record<string, string[]> = {
      marketplaceId: [ids.marketplace], itemName: [SHOP_ITEM, SWORD], inviteId: [ids.invite], memberId: [b.avatarId, a.avatarId],
      guildId: [ids.guild], turn: ['1'], avatarId: [a.avatarId],
    }
    return byName[name] ?? []
  }
  const knownValues = (): Record<string, unknown[]> => {
    const today = app.clock.now().toISOString().slice(0, 19)
    return {
      avatarId: [a.avatarId, b.avatarId], requestorId: [a.avatarId], requesterId: [a.avatarId], creatorAvatarId: [a.avatarId],
      attackerAvatarId: [a.avatarId], ownerAvatarId: [a.avatarId], targetAvatarId: [c.avatarId, b.avatarId], memberId: [a.avatarId, b.avatarId],
      ownerId: [a.userId], guildId: [ids.guild], questId: [ids.quest], habitIds: [[ids.habit]], habitId: ['stretch'],
      name: [SWORD, SHOP_ITEM, 'Fuzz Hero'], title: ['Stretch'], email: [a.email], password: [a.password], token: [a.token],
      date: [today, `${today}.123`, '2020-02-29T23:59:59', '2026-13-01T00:00:00', '2026-03-29T02:30:00'],
      duration: ['P7D', 'PT12H', 'P1M2D', 'PT1.5H', 'P1Y', 'P366D', 'PT0S', 'P1.5D'],
      timeZone: ['UTC', 'Europe/Paris', 'America/St_Johns', 'Etc/GMT-14', 'Asia/Kathmandu', 'Mars/Olympus', 'utc'],
      nickname: ['Sidekick', ' Sidekick '], creatorNickname: ['Chief'], dayOfMonth: [31, 29, 1],
    }
  }
  const readsFor = (op?: Operation): string[] => {
    const avatar = [`/api/v1/avatars/${a.avatarId}`, `/api/v1/avatars/${a.avatarId}/stats`]
    const habits = [`/api/v1/habits?avatarId=${a.avatarId}&limit=200`]
    const guild = [`/api/v1/guilds/${ids.guild}`, `/api/v1/guilds/${ids.guild}/invites`, `/api/v1/battles/${ids.battle}`]
    const quest = [`/api/v1/quests/${ids.quest}`, `/api/v1/quests/${ids.quest}/habits`, `/api/v1/quests/${ids.quest}/participants?limit=200`]
    const market = [`/api/v1/marketplaces/${ids.marketplace}/sold-items?limit=200`]
    const byContext: [RegExp, string[]][] = [
      [/^\/api\/v1\/avatars\/\{id\}\/invites$/, guild], [/^\/api\/v1\/avatars/, [`/api/v1/avatars/${b.avatarId}`]], [/^\/api\/v1\/habits/, habits],
      [/^\/api\/v1\/(guilds|battles)/, guild], [/^\/api\/v1\/quests/, [...quest, ...habits]], [/^\/api\/v1\/marketplaces/, market],
    ]
    if (!op) return [...avatar, `/api/v1/avatars/${b.avatarId}`, ...habits, ...guild, ...quest, ...market]
    return [...avatar, ...(byContext.find(([re]) => re.test(op.path))?.[1] ?? [])]
  }
  const snapshot = async (op?: Operation): Promise<Snapshot> => {
    const reads = readsFor(op)
    const answers = await Promise.all(reads.map((url) => app.inject({ url, headers: a.auth })))
    return answers.map((res, i) => [reads[i]!, res.statusCode, res.body])
  }

  return { app, paths: doc.paths, operations, a, b, c, pathValues, knownValues, snapshot }
}

export const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s)

/** The reads that answer differently now, each with what it answered before. */
export const changed = (before: Snapshot, after: Snapshot) => after.flatMap(([url, status, body], i) => {
  const [, was, wasBody] = before[i]!
  return status === was && body === wasBody ? [] : [`${url}: ${was} ${clip(wasBody, 600)}\n  now ${status} ${clip(body, 600)}`]
})

const PROBLEM = /^application\/problem\+json/
const FIELD_PATH = /^(body|querystring|params|headers)(\/|$)/
/** Whether the problem type is a game rule's refusal of a well-formed request, which is about state, not a field. */
const isRule = (type: string) => PROBLEM_TYPES[problemTypeSlug(type) ?? '']?.rule === true

/** The title each problem type was first seen with: one type, one title. */
const titles = new Map<string, string>()

/**
 * Why an answer's status is not one the document lists for the operation, or undefined. A URL whose
 * path parameter is a dot segment (`%2e%2e`) names another path, as URLs do: what the server
 * answered for that path (the problem's `instance`) is not the operation's answer.
 */
export function undocumentedStatus(op: Operation, url: string, res: Awaited<ReturnType<TestApp['inject']>>): string | undefined {
  if (op.statuses.includes(res.statusCode)) return undefined
  const instance = /"instance":"([^"?]*)/.exec(res.body)?.[1]
  if (instance !== undefined && instance !== url.split('?')[0]) return undefined
  return `a ${res.statusCode} that the document does not list for ${op.key} (it lists ${op.statuses.join(', ')})`
}

/** What is wrong with an answer, or undefined. */
export function fault(r: { documentedInvalid: boolean }, res: Awaited<ReturnType<TestApp['inject']>>): string | undefined {
  if (res.statusCode >= 500) return 'a 5xx for a client request'
  if (res.statusCode < 400) return r.documentedInvalid ? 'accepted a body the OpenAPI document refuses' : undefined
  if (!PROBLEM.test(String(res.headers['content-type']))) return `a ${res.statusCode} that is not problem+json (${res.headers['content-type']})`
  let p: { type?: unknown; title?: unknown; status?: unknown; detail?: unknown; errors?: { path?: unknown; message?: unknown }[] }
  try {
    p = JSON.parse(res.body)
  } catch {
    return 'a problem body that is not JSON'
  }
  if (typeof p.type !== 'string' || !p.type.startsWith('/problems/') || typeof p.title !== 'string' || typeof p.detail !== 'string' || p.status !== res.statusCode) {
    return 'a problem without type, title, status (as sent) and detail'
  }
  const title = titles.get(p.type)
  if (title !== undefined && title !== p.title) return `${p.type} titled '${p.title}' here and '${title}' elsewhere`
  titles.set(p.type, p.title)
  // A 400 says what in the request is wrong, unless the request was fine and a game rule refused it.
  const namesFields = Array.isArray(p.errors) && p.errors.length > 0
  if (res.statusCode === 400 && !isRule(p.type) && !namesFields) return 'a 400 that names no field'
  const bad = namesFields ? p.errors!.find((e) => typeof e.path !== 'string' || !FIELD_PATH.test(e.path) || typeof e.message !== 'string') : undefined
  if (bad) return `a field error without a field path: ${JSON.stringify(bad)}`
  if (res.statusCode === 405 && !res.headers.allow) return 'a 405 without Allow'
  return undefined
}
