import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { Database } from '../../src/platform/db/database.js'
import { migrateDatabase } from '../../src/platform/db/migrate.js'
import { createDatabase, databaseUrl, dropDatabase, type TemplateInfo } from './backends.js'
import { bundleQuestline } from './bundle.js'
import { SplitClusterBroker } from './split-clusters.js'

declare module 'vitest' {
  export interface ProvidedContext {
    templates: TemplateInfo
  }
}

/** Prepares the migrated templates once per run and removes everything it made afterwards. */
export default async function setup(project: TestProject) {
  const runId = `ql_test_${Date.now().toString(36)}_${process.pid}`
  const dir = await mkdtemp(path.join(tmpdir(), 'questline-test-'))
  const info: TemplateInfo = { runId }
  const cleanups: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })]

  const backend = project.config.env?.QL_TEST_BACKEND ?? 'embedded'
  if (backend === 'embedded') await prepareEmbedded(info, dir)
  if (backend === 'postgres') cleanups.push(await preparePostgres(info, runId))
  if (project.config.env?.QL_TEST_TARGET === 'split') {
    // Inside the project, so the bundle finds node_modules and drizzle/ above it.
    const bundleDir = path.resolve('node_modules/.cache/questline-test', runId)
    info.bundle = await bundleQuestline(bundleDir)
    cleanups.push(() => rm(bundleDir, { recursive: true, force: true }))
  }
  // The black-box suites share the broker's clusters; the fault tests start clusters of their own.
  if (project.config.env?.QL_TEST_TARGET === 'split' && project.config.env?.QL_TEST_OWN_CLUSTERS !== 'true') {
    const natsUrl = process.env.TEST_NATS_URL
    if (!natsUrl) throw new Error('The split-services project needs TEST_NATS_URL.')
    const broker = new SplitClusterBroker(info, natsUrl, process.env.QL_TEST_SPLIT_LOGS ? (line) => console.log(line) : undefined)
    project.provide('splitBroker', await broker.listen())
    cleanups.push(() => broker.close())
  }

  project.provide('templates', info)
  return async () => {
    for (const c of cleanups.reverse()) await c()
  }
}

async function prepareEmbedded(info: TemplateInfo, dir: string): Promise<void> {
  const embedded = await Database.embedded({})
  await migrateDatabase(embedded)
  const dump = await embedded.pglite!.dumpDataDir('none')
  await embedded.close()
  info.embeddedDumpFile = path.join(dir, 'template.tar')
  await writeFile(info.embeddedDumpFile, Buffer.from(await dump.arrayBuffer()))
}

async function preparePostgres(info: TemplateInfo, runId: string): Promise<() => Promise<void>> {
  const adminUrl = process.env.TEST_DATABASE_URL
  if (!adminUrl) throw new Error('The postgres test project needs TEST_DATABASE_URL.')
  const template = `${runId}_template`
  await createDatabase(adminUrl, template)
  const url = databaseUrl(adminUrl, template)
  const database = await Database.postgres(url, 1)
  await migrateDatabase(database, url)
  await database.close()
  info.postgresAdminUrl = adminUrl
  info.postgresTemplate = template
  return () => dropDatabase(adminUrl, template)
}
