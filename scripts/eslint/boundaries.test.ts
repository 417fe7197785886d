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

describe("a module inside a context (src/contexts/<context>/<module>/) has its layers checked as the context's", () => {
  const sqlImport = "import { sql } from 'drizzle-orm'\nexport const q = sql`select 1`\n"

  test('its domain is pure: no database, no layer of the context or of the module but domain', async () => {
    const file = 'src/contexts/tracking/portability/domain/planted.ts'
    expect(await problems(file, sqlImport)).toEqual(["domain code is pure: it may not import 'drizzle-orm'."])
    expect(await problems(file, "import { habitRepo } from '../../store/habits.js'\nexport const r = habitRepo\n")).toEqual([
      "domain code may not import its context's store/ layer.",
    ])
    expect(await problems(file, "import { historyRows } from '../store/history-rows.js'\nexport const r = historyRows\n")).toEqual([
      "domain code may not import its context's store/ layer.",
    ])
    expect(await problems(file, "import { isDue } from '../../domain/habit.js'\nexport const d = isDue\n")).toEqual([])
  })

  test('its app issues no SQL and reads no database error, and may use the context\'s store', async () => {
    const file = 'src/contexts/tracking/portability/app/planted.ts'
    expect(await problems(file, sqlImport)).toEqual([
      "app code issues no SQL: it may not import 'drizzle-orm'; queries belong in the context's store/.",
    ])
    expect(await problems(file, "import { pgConstraint } from '../../../../platform/db/database.js'\nexport const c = pgConstraint\n")).toHaveLength(1)
    expect(await problems(file, "import { habitRepo } from '../../store/habits.js'\nexport const r = habitRepo\n")).toEqual([])
  })

  test('its store may issue SQL', async () => {
    expect(await problems('src/contexts/tracking/portability/store/planted.ts', sqlImport)).toEqual([])
  })

  test("the context's layers do not import it; the context's index.ts wires it", async () => {
    const code = "import { ImportApp } from '../portability/app/import-app.js'\nexport const a = ImportApp\n"
    expect(await problems('src/contexts/tracking/app/planted.ts', code)).toEqual([
      "the context's layers do not import its module 'portability': it builds on them, and the context's index.ts and client.ts wire it.",
    ])
    expect(await problems('src/contexts/tracking/planted.ts', "import { buildPortability } from './portability/index.js'\nexport const b = buildPortability\n")).toEqual([])
  })

  test('another context reaches it only through the context\'s client.ts or events.ts', async () => {
    const code = "import { ImportApp } from '../../tracking/portability/app/import-app.js'\nexport const a = ImportApp\n"
    expect(await problems('src/contexts/guild/app/planted.ts', code)).toEqual([
      "context 'guild' may import context 'tracking' only through its client.ts or events.ts.",
    ])
  })
})
