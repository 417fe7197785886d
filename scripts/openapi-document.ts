/**
 * The OpenAPI documents of every context, as an all-in-one process serves them at /openapi.json
 * (public) and /internal/openapi.json (the routes only services call), for the scripts that
 * generate from the public one (client-generate.ts) and check both (lint-api.ts). Settings are
 * fixed here, not read from the environment, so the document is the same on every machine.
 * Declaring the routes needs no started platform: the database is not migrated, nothing listens.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../src/config.js'
import { Database } from '../src/platform/db/database.js'
import { apiDocument } from '../src/platform/http/server.js'
import { assemblePlatform } from '../src/server.js'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))

export const PUBLIC_DOCUMENT = '/openapi.json'
export const INTERNAL_DOCUMENT = '/internal/openapi.json'

export async function openApiDocument(url: typeof PUBLIC_DOCUMENT | typeof INTERNAL_DOCUMENT = PUBLIC_DOCUMENT): Promise<Record<string, unknown>> {
  const database = await Database.embedded({})
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', WEB_DIR: path.join(ROOT, 'web', 'no-web-app-here') })
    const { http } = await assemblePlatform({ config, logger: false, database })
    try {
      await http.ready()
      // What GET answers, through JSON as it is served.
      return JSON.parse(JSON.stringify(apiDocument(http, url === INTERNAL_DOCUMENT))) as Record<string, unknown>
    } finally {
      await http.close()
    }
  } finally {
    await database.close()
  }
}
