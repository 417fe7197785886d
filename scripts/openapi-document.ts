/**
 * The OpenAPI document of every context, as an all-in-one process serves it at /openapi.json, for
 * the scripts that generate from it (client-generate.ts) and check it (lint-api.ts). Settings are
 * fixed here, not read from the environment, so the document is the same on every machine.
 * Declaring the routes needs no started platform: the database is not migrated, nothing listens.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../src/config.js'
import { Database } from '../src/platform/db/database.js'
import { assemblePlatform } from '../src/server.js'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const database = await Database.embedded({})
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', WEB_DIR: path.join(ROOT, 'web', 'no-web-app-here') })
    const { http } = await assemblePlatform({ config, logger: false, database })
    try {
      await http.ready()
      // What GET /openapi.json answers, through JSON as it is served.
      return JSON.parse(JSON.stringify(http.swagger())) as Record<string, unknown>
    } finally {
      await http.close()
    }
  } finally {
    await database.close()
  }
}
