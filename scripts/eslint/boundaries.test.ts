/** The boundary rule fails on what it forbids, planted in files where it applies. */
import path from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, test } from 'vitest'

const eslint = new ESLint({ cwd: process.cwd() })

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(process.cwd(), file) })
  return result!.messages.filter((m) => m.ruleId === 'questline/context-boundaries').map((m) => m.message)
}

describe("a context's app/", () => {
  const file = 'src/contexts/guild/app/planted.ts'

  test('may not issue SQL', async () => {
    expect(await problems(file, "import { sql } from 'drizzle-orm'\nexport const q = sql`select 1`\n")).toEqual([
      "app code issues no SQL: it may not import 'drizzle-orm'; queries belong in the context's store/.",
    ])
  })

  test('may not read database errors', async () => {
    expect(await problems(file, "import { pgConstraint } from '../../../platform/db/database.js'\nexport const c = pgConstraint\n")).toHaveLength(1)
  })

  test('may use the database handle', async () => {
    expect(await problems(file, "import type { Database } from '../../../platform/db/database.js'\nexport type D = Database\n")).toEqual([])
  })
})

test('the store may issue SQL', async () => {
  expect(await problems('src/contexts/guild/store/planted.ts', "import { sql } from 'drizzle-orm'\nexport const q = sql`select 1`\n")).toEqual([])
})

test('a context reaches another only through its client.ts or events.ts', async () => {
  expect(await problems('src/contexts/guild/app/planted.ts', "import { avatarRepo } from '../../avatar/store/avatars.js'\nexport const r = avatarRepo\n")).toHaveLength(1)
})
