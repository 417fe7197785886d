/**
 * The command line:
 *   questline serve [--only <context>[,<context>…]] [--port <n>] [--test-controls]
 *                                                                 serve the platform (all contexts by default);
 *                                                                 --test-controls adds /_test routes (tests only, loopback only)
 *   questline migrate                                             apply database migrations and exit
 *   questline backup FILE | restore FILE [--force]                the embedded data directory (src/operator)
 *   questline admin grant|revoke EMAIL                            make or unmake an admin
 *   questline keys rotate                                         a new current signing key (src/operator)
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { type Config, ConfigError, loadConfigFromEnvironment } from './config.js'
import { changeRole } from './contexts/edge/app/roles.js'
import { BadBackup } from './operator/backup-file.js'
import { admin, backup, backupOf, restore, rotateSigningKey } from './operator/commands.js'
import { ScheduledBackups } from './operator/scheduled-backups.js'
import { OperatorFailure, serveOperatorSocket } from './operator/socket.js'
import { AppError } from './platform/errors.js'
import { DataDirInUse } from './platform/db/lock-file.js'
import { migrateDatabase } from './platform/db/migrate.js'
import { drain } from './platform/http/drain.js'
import { compileRemainingSchemas } from './platform/http/server.js'
import { isLoopbackHost } from './platform/http/test-control.js'
import { createLogger } from './platform/log.js'
import { assemblePlatform, CONTEXT_NAMES, type ContextName, openDatabase } from './server.js'

const USAGE = `usage: questline serve [--only <context>[,<context>...]] [--port <n>] [--test-controls]
       questline migrate
       questline backup FILE             the embedded data directory (DATA_DIR), also while it is served
       questline restore FILE [--force]  into DATA_DIR, which must hold no data unless --force (server stopped)
       questline admin grant|revoke EMAIL
       questline keys rotate             a new current signing key; tokens of the previous one stay valid until they expire
contexts: ${CONTEXT_NAMES.join(', ')}`

const isContextName = (name: string): name is ContextName => (CONTEXT_NAMES as readonly string[]).includes(name)

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

async function main(argv: string[]): Promise<void> {
  const loaded = performance.now()
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      only: { type: 'string' }, port: { type: 'string' }, 'test-controls': { type: 'boolean' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) return console.log(USAGE)
  const command = positionals[0] ?? 'serve'
  const config = loadConfigFromEnvironment(values.port ? { PORT: values.port } : {})
  const logger = createLogger(config.logLevel)

  if (command === 'migrate') {
    const database = await openDatabase(config, { log: logger || undefined })
    try {
      await migrateDatabase(database, config.databaseUrl)
    } finally {
      await database.close()
    }
    logger.info('migrations applied')
    return
  }
  if (command === 'backup' || command === 'restore' || command === 'admin') {
    return console.log(await operatorCommand(config, command, positionals.slice(1), values.force === true))
  }
  if (command === 'keys') {
    if (positionals[1] !== 'rotate' || positionals.length > 2) fail('usage: questline keys rotate')
    return console.log(await rotateSigningKey(config))
  }
  if (command !== 'serve') fail(USAGE)

  const only = values.only?.split(',').map((s) => s.trim())
  const unknown = only?.filter((c) => !isContextName(c)) ?? []
  if (unknown.length > 0) fail(`unknown context: ${unknown.join(', ')}\n${USAGE}`)
  const testControls = values['test-controls'] === true
  if (testControls && !isLoopbackHost(config.host)) {
    fail(`--test-controls let anyone who reaches the server set its clock: they need a loopback HOST (127.0.0.1, ::1, localhost), not ${config.host}`)
  }

  // The embedded server backs itself up on BACKUP_SCHEDULE (the config refuses one with DATABASE_URL).
  const backups = config.backupSchedule === undefined ? undefined : new ScheduledBackups({
    schedule: config.backupSchedule, dir: config.backupDir, keep: config.backupKeep, log: logger || undefined,
    take: () => backupOf(platform.database, config.dataDir),
  })
  await backups?.checkWritable().catch((e: unknown) => fail((e as Error).message))
  // Everything is wired and declared while the embedded database starts; the server listens
  // (/healthz answers, other requests wait) and then the platform starts: database, migrations, bus.
  const platform = await assemblePlatform({
    config,
    logger,
    keysDir: config.dataDir,
    ...(only ? { only: only.filter(isContextName) } : {}),
    testControls,
    ...(backups ? { metrics: [backups.metrics] } : {}),
  })
  const { http } = platform
  const assembled = performance.now()
  const log = logger || undefined
  const stop = async (signal: string) => {
    logger.info({ signal }, 'draining: finishing what is under way')
    // A process started meanwhile on the same data directory waits for this one instead of refusing it.
    await platform.database.markStopping().catch((e: unknown) => logger.warn({ err: e }, 'could not mark the data directory\'s lock as stopping'))
    // No backup starts from now on; one being written is finished before the database closes.
    await backups?.stop()
    const drained = await drain(http, config.drainTimeoutMs)
    if (!drained) logger.warn({ drainTimeoutMs: config.drainTimeoutMs }, 'drain timed out: connections left were cut')
    process.exit(drained ? 0 : 1)
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
  logger.info({ loadedMs: Math.round(loaded), assembledMs: Math.round(assembled), listeningMs: Math.round(listening), readyMs: Math.round(performance.now()), startMs: platform.startPhases },
    `Questline is up on http://${config.host}:${config.port} (${where}); API docs at /docs`)
  if (!config.databaseUrl) {
    await serveOperatorSocket(config.dataDir, {
      backup: () => backupOf(platform.database, config.dataDir),
      role: (email, role) => changeRole({ database: platform.database, clock: platform.clock, revocations: platform.revocations, accessTokenTtlSeconds: config.accessTokenTtlSeconds }, email, role),
      rotateKeys: () => platform.keys.rotate(),
    }, log)
    await backups?.start()
  }
  // Validators and serializers are compiled on first use; the rest now, between requests.
  void compileRemainingSchemas(http, (e) => logger.error({ err: e }, 'a route schema does not compile'))
}

async function operatorCommand(config: Config, command: 'backup' | 'restore' | 'admin', args: string[], force: boolean): Promise<string> {
  if (command === 'admin') {
    const [action, email] = args
    if ((action !== 'grant' && action !== 'revoke') || !email || args.length > 2) fail(`usage: questline admin grant|revoke EMAIL`)
    return admin(config, action, email)
  }
  const [file] = args
  if (!file || args.length > 1) fail(`usage: questline ${command} FILE${command === 'restore' ? ' [--force]' : ''}`)
  return command === 'backup' ? backup(config, path.resolve(file)) : restore(config, path.resolve(file), force)
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof ConfigError || e instanceof DataDirInUse || e instanceof OperatorFailure || e instanceof BadBackup) fail(e.message)
  if (e instanceof AppError) fail(e.message)
  const code = (e as { code?: unknown }).code
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) fail(`${(e as Error).message}\n${USAGE}`)
  console.error(e)
  process.exit(1)
})
