/**
 * A property-based fuzz of every operation in /openapi.json. For each operation,
 * fast-check builds requests from its documented schemas: a valid request (real ids in the path,
 * so requests reach validation and rules; every required field and some optional ones; values
 * biased to their bounds and to awkward but legal text) with one change, now and then none or
 * several. A change is any of: a path, query or header parameter beyond its bounds, oddly escaped,
 * hostile or missing; a body field at any depth beyond its bounds (integers past 2^31 and 2^53,
 * 1e20, 1e400, -0, fractions, exponents), of a wrong type, hostile (NUL, lone surrogates, combining
 * marks, bidi overrides, 10,000 characters) or missing; unknown and duplicate keys, deep nesting,
 * a body that is no object, malformed, too large, absent or of another content type; a body on a
 * route that takes none (GET bodies alike); another token or none. Every possible change, and
 * each edge value of every parameter and field, is tried once before the random runs.
 *
 * Properties: never a 5xx; every status answered is one the document lists for the operation; every
 * 4xx is problem+json with one title per type, and a 400 names the fields at fault (`errors[].path`
 * under body, querystring, params or headers) unless a game rule refused a well-formed request; a
 * body the document refuses is never accepted; a refused request that is not a GET changes nothing
 * (state read through the API before and after); afterwards every process is healthy. (A wrong
 * method on every known path: wrong-methods.test.ts; the statuses of malformed requests to every
 * operation, aimed rather than drawn: openapi-truth.test.ts.)
 *
 * Reproducing: a failure prints the operation, QL_FUZZ_SEED and fast-check's seed and path.
 * QL_FUZZ_SEED (default below) and QL_FUZZ_RUNS (random runs per operation) change the run;
 * QL_FUZZ_ONLY="POST /api/v1/habits" runs one operation, with QL_FUZZ_PATH replaying one
 * counterexample of it; QL_FUZZ_STATS=1 prints how each operation answered.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { splitTarget, type TestApp } from './support/app.js'
import { requestsOf, send, type FuzzRequest, type Response } from './support/fuzz-requests.js'
import { changed, clip, fault, fuzzWorld, undocumentedStatus, type FuzzWorld, type Operation, type Snapshot } from './support/fuzz-world.js'
import type { ValueOptions } from './support/openapi-arbitraries.js'
import type { SplitTestApp } from './support/split-app.js'

const SEED = Number(process.env.QL_FUZZ_SEED ?? 20261125)
/**
 * Random runs per operation. The seed makes the same requests in every shape, so split services
 * (where only the gateway's forwarding and the contexts' calls differ) take the examples, which try
 * every change once, and a few random runs.
 */
const RUNS = Number(process.env.QL_FUZZ_RUNS ?? (splitTarget ? 3 : 10))
const ONLY = process.env.QL_FUZZ_ONLY
const REPLAY_PATH = process.env.QL_FUZZ_PATH

let world: FuzzWorld
let app: TestApp
let operations: Operation[] = []
beforeAll(async () => {
  world = await fuzzWorld()
  ;({ app, operations } = world)
})
afterAll(() => app?.close())

/** The state before the next request: read again once events of a success have been applied. */
let baseline: Snapshot = []
const rebase = async (op?: Operation) => {
  await app.settle()
  baseline = await world.snapshot(op)
}

/** With QL_FUZZ_STATS set: how each operation answered, to see what the fuzz reaches. */
const stats = new Map<string, Map<string, number>>()
function count(op: Operation, res: Response): void {
  if (!process.env.QL_FUZZ_STATS) return
  const of = stats.get(op.key) ?? new Map<string, number>()
  stats.set(op.key, of)
  const type = res.statusCode >= 400 ? String(/"type":"\/problems\/([^"]+)"/.exec(res.body)?.[1]) : ''
  const k = `${res.statusCode}${type ? ` ${type}` : ''}`
  of.set(k, (of.get(k) ?? 0) + 1)
}

async function exercise(op: Operation, r: FuzzRequest): Promise<void> {
  const res = await send(world, op, r)
  count(op, res)
  const wrong = fault(r, res) ?? undocumentedStatus(op, r.url, res)
  if (wrong) {
    // What it did, if anything, is not what the next run (a shrink of this one) is judged against.
    await rebase(op)
    throw new Error(`${wrong}: ${res.statusCode} ${clip(res.body, 800)}`)
  }
  // A success may change state (the next request is judged against what it left); a GET may not,
  // so a refused GET is not read around either.
  if (r.method === 'GET') return
  if (res.statusCode < 400) return rebase(op)
  const after = await world.snapshot(op)
  const diff = changed(baseline, after)
  baseline = after
  if (diff.length) throw new Error(`a refused request (${res.statusCode} ${clip(res.body, 300)}) changed state:\n${diff.join('\n')}`)
}

/**
 * Reads and harmless writes first; then what deletes or hands over, deepest path first, the
 * player's own avatar, then their account, last: a success there takes the fixture away from what follows.
 */
const RESHAPING = /^(DELETE |POST .*\/(leave|leader)$|PATCH .*\/role$)/
function ordered(ops: Operation[]): Operation[] {
  const rank = (o: Operation) => (o.key === 'DELETE /api/v1/me' ? 3 : o.key === 'DELETE /api/v1/avatars/{id}' ? 2 : RESHAPING.test(o.key) ? 1 : 0)
  return [...ops].sort((x, y) => rank(x) - rank(y) || (rank(x) === 1 ? y.path.split('/').length - x.path.split('/').length : 0))
}

/** A seed of its own for each operation, so one operation reruns alone as it ran with the others. */
function seedOf(op: Operation): number {
  let h = SEED | 0
  for (const ch of op.key) h = Math.imul(h ^ ch.charCodeAt(0), 16777619)
  return h | 0
}

/** fast-check's report (seed, path, counterexample) and the property's own error, which it keeps as the cause. */
const reportOf = (e: unknown) => {
  const err = e as Error & { cause?: unknown }
  return err.cause instanceof Error && !err.message.includes(err.cause.message) ? `${err.message}\nGot: ${err.cause.message}` : err.message
}

describe('a generated fuzz of every operation', () => {
  test('the document lists the operations the fuzz covers', () => {
    expect(operations.length).toBeGreaterThan(100)
  })

  test('every operation: no 5xx, problem+json refusals with field paths, refused requests change nothing', async () => {
    const o: ValueOptions = { known: world.knownValues() }
    const chosen = ordered(operations).filter((op) => !ONLY || op.key === ONLY)
    expect(chosen.length, `QL_FUZZ_ONLY=${ONLY} names no operation`).toBeGreaterThan(0)
    const failures: string[] = []
    await app.settle()
    for (const op of chosen) {
      const seed = seedOf(op)
      // Every success before has been settled: what the operation's context shows now is its baseline.
      baseline = await world.snapshot(op)
      try {
        const { arbitrary, examples } = requestsOf(world, op, o, seed)
        await fc.assert(fc.asyncProperty(arbitrary, (r) => exercise(op, r)), {
          // The examples come first and count as runs: RUNS random ones follow.
          seed, numRuns: examples.length + RUNS, examples, ...(ONLY && REPLAY_PATH ? { path: REPLAY_PATH } : {}),
        })
      } catch (e) {
        failures.push(`${op.key} — reproduce with QL_FUZZ_SEED=${SEED} QL_FUZZ_ONLY='${op.key}' (and QL_FUZZ_PATH from below)\n${reportOf(e)}`)
      }
    }
    if (process.env.QL_FUZZ_STATS) {
      console.log([...stats].map(([k, of]) => `${k}: ${[...of].sort((x, y) => y[1] - x[1]).map(([s, n]) => `${s}×${n}`).join(', ')}`).join('\n'))
    }
    if (failures.length) throw new Error(`${failures.length} operation(s) failed the fuzz:\n\n${failures.join('\n\n')}`)
  }, 300_000)

  test('afterwards every process is healthy and ready', async () => {
    const split = (app as Partial<SplitTestApp>).cluster
    const urls = split
      ? ['edge', 'avatar', 'tracking', 'quest', 'guild', 'marketplace', 'live'].flatMap((ctx) => split.of(ctx).map((p) => p.url))
      : []
    for (const probe of ['/healthz', '/readyz']) {
      const res = await app.inject({ url: probe })
      expect(res.statusCode, `${probe}: ${res.body}`).toBe(200)
      for (const base of urls) expect((await fetch(base + probe)).status, `${base}${probe}`).toBe(200)
    }
  })
})
