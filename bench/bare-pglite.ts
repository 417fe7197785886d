/**
 * A bare PGlite process, the embedded platform's memory and start-up floor: opens PGlite on the
 * data directory given (a temporary one without), runs a few queries, and prints one JSON line:
 * {openMs, queriesMs, rssMb}. Run as the platform runs: node --import tsx.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { PGlite } from '@electric-sql/pglite'

const given = process.argv[2]
const dir = given ?? await mkdtemp(path.join(tmpdir(), 'questline-bare-pglite-'))
const t0 = performance.now()
const db = await PGlite.create({ dataDir: dir })
const openMs = performance.now() - t0

const t1 = performance.now()
await db.query('create temporary table bare (id text primary key, money bigint not null, items jsonb not null)')
await db.query(`insert into bare select 'a' || i, 100, '[]' from generate_series(1, 1000) as i`)
for (let i = 0; i < 100; i++) {
  await db.query('update bare set money = money + 1 where id = $1 returning *', [`a${i + 1}`])
  await db.query('select * from bare where id = $1', [`a${i + 1}`])
}
await db.query('select count(*) from pg_class')
const queriesMs = performance.now() - t1

const kb = (await readFile('/proc/self/status', 'utf8')).match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]
console.log(JSON.stringify({ openMs: Math.round(openMs), queriesMs: Math.round(queriesMs), rssMb: kb === undefined ? null : Math.round(Number(kb) / 1024) }))
await db.close()
if (!given) await rm(dir, { recursive: true, force: true })
