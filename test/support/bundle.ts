import { buildServer } from '../../scripts/build.js'

/**
 * Questline built as `npm install` builds it (scripts/build.ts), for tests that start many
 * processes: node loads it in a fraction of the time tsx takes to compile the sources each time.
 */
export async function bundleQuestline(outDir: string): Promise<string> {
  return buildServer(outDir)
}
