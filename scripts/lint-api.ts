/**
 * Lints the API documents with Redocly's OpenAPI linter (@redocly/openapi-core) and its
 * `recommended` rules, as configured in redocly.yaml (a rule turned off says why there; a single
 * finding accepted says why in .redocly.lint-ignore.yaml). The documents are the ones the platform
 * serves at /openapi.json and /internal/openapi.json, built in this process (scripts/openapi-document.ts).
 *
 * `npm run api:lint` prints every finding and exits 1 on any error or warning (CI).
 */
import path from 'node:path'
import { formatProblems, getTotals, lintFromString, loadConfig } from '@redocly/openapi-core'
import { INTERNAL_DOCUMENT, openApiDocument, PUBLIC_DOCUMENT, ROOT } from './openapi-document.js'

/** Each document's findings; answers how many errors and warnings. */
async function lint(url: typeof PUBLIC_DOCUMENT | typeof INTERNAL_DOCUMENT): Promise<number> {
  const config = await loadConfig({ configPath: path.join(ROOT, 'redocly.yaml') })
  const source = JSON.stringify(await openApiDocument(url), null, 2)
  // Where findings say they are (the document is never written; the ignore file names it so).
  const problems = await lintFromString({ source, absoluteRef: path.join(ROOT, url.slice(1)), config })
  const totals = getTotals(problems)
  const shown = problems.filter((p) => !p.ignored)
  if (shown.length > 0) formatProblems(shown, { format: 'stylish', totals, version: 'questline' })
  console.log(`${url}: ${totals.errors} errors, ${totals.warnings} warnings (${totals.ignored} accepted in .redocly.lint-ignore.yaml)`)
  return totals.errors + totals.warnings
}

async function main(): Promise<number> {
  const findings = (await lint(PUBLIC_DOCUMENT)) + (await lint(INTERNAL_DOCUMENT))
  return findings > 0 ? 1 : 0
}

main().then((code) => process.exit(code), (e: unknown) => {
  console.error(e)
  process.exit(1)
})
