/**
 * Where the platform's start-up goes: the steps of `questline serve` (src/main.ts) timed one by
 * one in this process, on the data directory / database of the environment (DATA_DIR,
 * DATABASE_URL). Prints one JSON line of milliseconds; the bench runs it after the real thing
 * has created and migrated the data. Run as the platform runs: node --import tsx.
 */
import { performance } from 'node:perf_hooks'
import { PLATFORM_PACKAGES } from './lib/dependencies.js'

const phases: Record<string, number> = { 'node + tsx boot (before this script runs)': Math.round(performance.now()) }
let last = performance.now()
const lap = (name: string) => {
  const now = performance.now()
  phases[name] = Math.round(now - last)
  last = now
}

// The platform's dependencies first, so what is left of loading the code is our own modules (through tsx).
for (const name of PLATFORM_PACKAGES) await import(name)
lap('load the dependencies (through tsx)')
const { loadConfigFromEnvironment } = await import('../src/config.js')
const { createLogger } = await import('../src/platform/log.js')
const { migrateDatabase } = await import('../src/platform/db/migrate.js')
const { buildPlatform, openDatabase } = await import('../src/server.js')
lap('load our code (src/server.ts and its graph, through tsx)')
const config = loadConfigFromEnvironment({})
const database = await openDatabase(config)
lap(config.databaseUrl ? 'open the database (pg pool)' : 'open the database (PGlite on DATA_DIR)')
await migrateDatabase(database, config.databaseUrl)
lap('migrations (nothing to apply)')
const { http } = await buildPlatform({ config, logger: createLogger('warn'), keysDir: config.dataDir, database })
lap('build the platform (contexts, routes, jobs)')
await http.listen({ port: 0, host: '127.0.0.1' })
lap('listen (fastify ready: schemas compiled, hooks run)')
phases.total = Math.round(performance.now())
console.log(JSON.stringify(phases))
await http.close()
await database.close()
process.exit(0)
