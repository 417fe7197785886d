/**
 * Lints the API document with Redocly's OpenAPI linter (@redocly/openapi-core) and its
 * `recommended` rules, as configured in redocly.yaml (a rule turned off says why there; a single
 * finding accepted says why in .redocly.lint-ignore.yaml). The document is the one the platform
 * serves at /openapi.json, built in this process (scripts/openapi-document.ts).
 *
 * `npm run api:lint` prints every finding and exits 1 on any error or warning (CI).
 */
import path from 'node:path'
import { formatProblems, getTotals, lintFromString, loadConfig } from '@redocly/openapi-core'
import { openApiDocument, ROOT } from './openapi-document.js'

/** Where findings say they are (the document is never written; the ignore file names it so). */
const DOCUMENT_REF = path.join(ROOT, 'openapi.json')

async function main(): Promise<number> {
  const config = await loadConfig({ configPath: path.join(ROOT, 'redocly.yaml') })
  const source = JSON.stringify(await openApiDocument(), null, 2)
  const problems = await lintFromString({ source, absoluteRef: DOCUMENT_REF, config })
  const totals = getTotals(problems)
  const shown = problems.filter((p) => !p.ignored)
  if (shown.length > 0) formatProblems(shown, { format: 'stylish', totals, version: 'questline' })
  console.log(`/openapi.json: ${totals.errors} errors, ${totals.warnings} warnings (${totals.ignored} accepted in .redocly.lint-ignore.yaml)`)
  return totals.errors + totals.warnings > 0 ? 1 : 0
}

main().then((code) => process.exit(code), (e: unknown) => {
  console.error(e)
  process.exit(1)
})
