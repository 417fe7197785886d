/** The boundary rule fails on what it forbids, planted in files where it applies. */
import path from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, test } from 'vitest'
import { CONTEXT_NAMES } from '../../src/contexts/modules.js'

const eslint = new ESLint({ cwd: process.cwd() })

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(process.cwd(), file) })
  return result!.messages.filter((m) => m.ruleId === 'questline/context-boundaries').map((m) => m.message)
}

/** A file that imports one name from `from`. */
const importing = (from: string) => `import { x } from '${from}'\nexport const y = x\n`

describe("a context's app/", () => {
  const file = 'src/contexts/guild/app/planted.ts'

  test('may not issue SQL', async () => {
    expect(await problems(file, "import { sql } from 'drizzle-orm'\nexport const q = sql`select 1`\n")).toEqual([
      "app code issues no SQL: it may not import 'drizzle-orm'; queries belong in the context's store/.",
    ])
  })

  test('may not read database errors', async () => {
    expect(await problems(file, "import { pgErrorCode } from '../../../platform/db/database.js'\nexport const c = pgErrorCode\n")).toHaveLength(1)
  })

  test('may use the database handle', async () => {
    expect(await problems(file, "import type { Database } from '../../../platform/db/database.js'\nexport type D = Database\n")).toEqual([])
  })
})

test('the store may issue SQL', async () => {
  expect(await problems('src/contexts/guild/store/planted.ts', "import { sql } from 'drizzle-orm'\nexport const q = sql`select 1`\n")).toEqual([])
})

describe('between contexts', () => {
  test("a context reaches another only through its client.ts: not its store, its app, nor its module", async () => {
    const file = 'src/contexts/guild/app/planted.ts'
    expect(await problems(file, importing('../../avatar/store/avatars.js'))).toEqual([
      "context 'guild' may import context 'avatar' only through its client.ts.",
    ])
    expect(await problems(file, importing('../../avatar/app/avatar-app.js'))).toHaveLength(1)
    expect(await problems(file, importing('../../avatar/index.js'))).toHaveLength(1)
    expect(await problems(file, importing('../../avatar/client.js'))).toEqual([])
  })

  // Read from MODULES itself: each context may call the port of the one built just before it, never the other way.
  const pairs = CONTEXT_NAMES.slice(1).map((later, i) => [CONTEXT_NAMES[i]!, later] as const)
  test.each(pairs)("no import runs back up the order of MODULES: %s is built before %s", async (earlier, later) => {
    expect(await problems(`src/contexts/${later}/app/planted.ts`, importing(`../../${earlier}/client.js`))).toEqual([])
    const back = await problems(`src/contexts/${earlier}/app/planted.ts`, importing(`../../${later}/client.js`))
    expect(back).toEqual([expect.stringContaining(`context '${earlier}' may not import context '${later}': a context calls only the ports of contexts built before it`)])
  })

  test("a context's module file follows the same rules towards other contexts", async () => {
    const file = 'src/contexts/tracking/index.ts'
    expect(await problems(file, importing('../avatar/client.js'))).toEqual([])
    expect(await problems(file, importing('../avatar/store/tables.js'))).toHaveLength(1)
    expect(await problems(file, importing('../quest/client.js'))).toHaveLength(1)
  })

  test('every context may import every event contract, whoever publishes it', async () => {
    expect(await problems('src/contexts/avatar/index.ts', importing('../../contracts/events/edge.js'))).toEqual([])
    expect(await problems('src/contexts/avatar/app/planted.ts', importing('../../../contracts/events/tracking.js'))).toEqual([])
  })
})

describe('inside a context, a layer imports only the layers below it', () => {
  test.each([
    ['http', 'store', false],
    ['http', 'app', true],
    ['http', 'domain', true],
    ['app', 'http', false],
    ['app', 'store', true],
    ['store', 'app', false],
    ['store', 'http', false],
    ['store', 'domain', true],
    ['domain', 'store', false],
    ['domain', 'app', false],
  ])('%s/ importing %s/: allowed %s', async (from, to, allowed) => {
    const found = await problems(`src/contexts/live/${from}/planted.ts`, importing(`../${to}/some.js`))
    expect(found).toHaveLength(allowed ? 0 : 1)
  })

  test('the message says what the layer may import', async () => {
    expect(await problems('src/contexts/live/http/planted.ts', importing('../store/webhooks.js'))).toEqual([
      "http code may not import its context's store/: it imports domain/ and app/ of its context.",
    ])
  })

  test("a layer does not import its context's module files (they sit above every layer)", async () => {
    expect(await problems('src/contexts/quest/http/planted.ts', importing('../client.js'))).toEqual([
      "http code may not import its context's client.ts: it imports domain/ and app/ of its context.",
    ])
    expect(await problems('src/contexts/quest/app/planted.ts', importing('../index.js'))).toHaveLength(1)
  })

  test('module files declare and wire: they may import every layer of their own context', async () => {
    for (const layer of ['domain', 'app', 'http', 'store']) {
      expect(await problems('src/contexts/quest/index.ts', importing(`./${layer}/some.js`))).toEqual([])
      expect(await problems('src/contexts/quest/client.ts', importing(`./${layer}/some.js`))).toEqual([])
    }
  })
})

describe('the event contracts', () => {
  const file = 'src/contracts/events/planted.ts'

  test("import typebox, the platform's event helpers and each other", async () => {
    expect(await problems(file, importing('typebox'))).toEqual([])
    expect(await problems(file, importing('../../platform/events/contract.js'))).toEqual([])
    expect(await problems(file, importing('./avatar.js'))).toEqual([])
  })

  test('import no context, no other platform module and no other package', async () => {
    expect(await problems(file, importing('../../contexts/tracking/domain/rules.js'))).toEqual([
      "event contracts sit below every context: they may import only the platform's event helpers (src/platform/events/contract.ts) and typebox.",
    ])
    expect(await problems(file, importing('../../contexts/tracking/client.js'))).toHaveLength(1)
    expect(await problems(file, importing('../../platform/db/database.js'))).toHaveLength(1)
    expect(await problems(file, importing('drizzle-orm'))).toEqual(["event contracts are plain schemas: they may import only typebox, not 'drizzle-orm'."])
  })

  test('are not imported by the platform', async () => {
    expect(await problems('src/platform/events/planted.ts', importing('../../contracts/events/avatar.js'))).toEqual([
      'platform/ knows no game rule: it may not import the event contracts.',
    ])
  })
})

describe("a module inside a context (src/contexts/<context>/<module>/) has its layers checked as the context's", () => {
  const sqlImport = "import { sql } from 'drizzle-orm'\nexport const q = sql`select 1`\n"

  test('its domain is pure: no database, no layer of the context or of the module but domain', async () => {
    const file = 'src/contexts/tracking/portability/domain/planted.ts'
    expect(await problems(file, sqlImport)).toEqual(["domain code is pure: it may not import 'drizzle-orm'."])
    expect(await problems(file, "import { habitRepo } from '../../store/habits.js'\nexport const r = habitRepo\n")).toEqual([
      "domain code may not import its context's store/: it imports no other layer of its context.",
    ])
    expect(await problems(file, "import { historyRows } from '../store/history-rows.js'\nexport const r = historyRows\n")).toEqual([
      "domain code may not import its context's store/: it imports no other layer of its context.",
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
      "the context's layers do not import its module 'portability': it builds on them, and the context's root files wire it.",
    ])
    expect(await problems('src/contexts/tracking/planted.ts', "import { buildPortability } from './portability/index.js'\nexport const b = buildPortability\n")).toEqual([])
  })

  test('another context reaches it only through the context\'s client.ts', async () => {
    const code = "import { ImportApp } from '../../tracking/portability/app/import-app.js'\nexport const a = ImportApp\n"
    expect(await problems('src/contexts/guild/app/planted.ts', code)).toEqual([
      "context 'guild' may import context 'tracking' only through its client.ts.",
    ])
  })
})
