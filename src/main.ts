/**
 * The command line:
 *   questline serve [--only <context>[,<context>…]] [--port <n>]   serve the platform (all contexts by default)
 *   questline migrate                                             apply database migrations and exit
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfigFromEnvironment } from './config.js'
import { DataDirInUse } from './platform/db/lock-file.js'
import { migrateDatabase } from './platform/db/migrate.js'
import { compileRemainingSchemas } from './platform/http/server.js'
import { createLogger } from './platform/log.js'
import { assemblePlatform, CONTEXT_NAMES, type ContextName, openDatabase } from './server.js'

const USAGE = `usage: questline serve [--only <context>[,<context>...]] [--port <n>]
       questline migrate
contexts: ${CONTEXT_NAMES.join(', ')}`

const isContextName = (name: string): name is ContextName => (CONTEXT_NAMES as readonly string[]).includes(name)

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { only: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  })
  if (values.help) return console.log(USAGE)
  const command = positionals[0] ?? 'serve'
  const config = loadConfigFromEnvironment(values.port ? { PORT: values.port } : {})
  const logger = createLogger(config.logLevel)

  if (command === 'migrate') {
    const database = await openDatabase(config)
    try {
      await migrateDatabase(database, config.databaseUrl)
    } finally {
      await database.close()
    }
    logger.info('migrations applied')
    return
  }
  if (command !== 'serve') fail(USAGE)

  const only = values.only?.split(',').map((s) => s.trim())
  const unknown = only?.filter((c) => !isContextName(c)) ?? []
  if (unknown.length > 0) fail(`unknown context: ${unknown.join(', ')}\n${USAGE}`)

  // Everything is wired and declared while the embedded database starts; the server listens
  // (/healthz answers, other requests wait) and then the platform starts: database, migrations, bus.
  const platform = await assemblePlatform({
    config,
    logger,
    keysDir: config.dataDir,
    ...(only ? { only: only.filter(isContextName) } : {}),
  })
  const { http } = platform
  const stop = async (signal: string) => {
    logger.info({ signal }, 'shutting down')
    await http.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
  try {
    await http.listen({ port: config.port, host: config.host })
  } catch (e) {
    await http.close()
    throw e
  }
  const listening = performance.now()
  await platform.start()
  const where = config.databaseUrl ? 'PostgreSQL' : `embedded database in ${path.relative(process.cwd(), config.dataDir) || '.'}`
  logger.info({ listeningMs: Math.round(listening), readyMs: Math.round(performance.now()) },
    `Questline is up on http://${config.host}:${config.port} (${where}); API docs at /docs`)
  // Validators and serializers are compiled on first use; the rest now, between requests.
  void compileRemainingSchemas(http, (e) => logger.error({ err: e }, 'a route schema does not compile'))
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof ConfigError || e instanceof DataDirInUse) fail(e.message)
  const code = (e as { code?: unknown }).code
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) fail(`${(e as Error).message}\n${USAGE}`)
  console.error(e)
  process.exit(1)
})
