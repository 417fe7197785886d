/**
 * Migrations only expand (docs/operations.md#upgrades): during a rollout the old version runs on the
 * new schema, and after a rollback the old version runs on it alone, so a migration adds tables,
 * columns that are nullable or have defaults, indexes and functions, and takes nothing away that a
 * running version may read or write. Every statement of every migration in drizzle/ is read here, and
 * one that contracts (drops anything, renames, changes a column's type, makes a column NOT NULL, adds
 * a NOT NULL column without a default, truncates) fails the test, unless it is listed in REVIEWED below
 * with why it is safe. The list holds exactly what the migrations contract, so it cannot go stale.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'

const DRIZZLE = path.join(import.meta.dirname, '..', '..', '..', 'drizzle')

/**
 * The contract steps of migrations made before the first release, when no two versions of the
 * platform ran on one database side by side: each read, and let stand for the reason given. A new
 * entry needs the same review; once versions are released, a contract step belongs in a release
 * after the one that stopped reading or writing what it takes away.
 */
const REVIEWED: Record<string, string[]> = {
  // Its unexpired rows are copied to platform.token_revocations just before.
  '0007_token_revocations': ['drop: DROP TABLE "identity"."revoked_access_tokens" CASCADE'],
  // A habit's own zone became optional (NULL: it follows its avatar's).
  '0018_fair_day': ['drop: ALTER TABLE "tracking"."habits" ALTER COLUMN "time_zone" DROP NOT NULL'],
  // The column is filled just before; the index is made again on the new columns just after.
  '0020_participant_day': [
    'drop: DROP INDEX "quest"."participations_running_idx"',
    'set not null: ALTER TABLE "quest"."participations" ALTER COLUMN "ends_at" SET NOT NULL',
  ],
  // miss_check_at takes miss_check_due's place, filled from it first.
  '0023_miss_check_at': [
    'set not null: ALTER TABLE "tracking"."habits" ALTER COLUMN "miss_check_at" SET NOT NULL',
    'drop: DROP INDEX "tracking"."habits_miss_due_idx"',
    'drop: ALTER TABLE "tracking"."habits" DROP COLUMN "miss_check_due"',
  ],
  // The index is made again, leaving archived habits out.
  '0025_habit_archived': ['drop: DROP INDEX "tracking"."habits_miss_check_at_idx"'],
}

/** A migration's statements: split at `;` outside dollar-quoted bodies and quoted text, comments dropped, spaces collapsed. */
function statementsOf(migration: string): string[] {
  const statements: string[] = []
  let current = ''
  let dollar: string | undefined
  let quoted = false
  for (let i = 0; i < migration.length; i++) {
    const ch = migration[i]!
    if (dollar) {
      if (migration.startsWith(dollar, i)) {
        current += dollar
        i += dollar.length - 1
        dollar = undefined
      } else current += ch
      continue
    }
    if (quoted) {
      current += ch
      if (ch === "'") quoted = false
      continue
    }
    if (ch === '-' && migration[i + 1] === '-') {
      const end = migration.indexOf('\n', i)
      i = end === -1 ? migration.length : end
      current += ' '
      continue
    }
    const tag = ch === '$' ? /^\$[A-Za-z_]*\$/.exec(migration.slice(i))?.[0] : undefined
    if (tag) {
      dollar = tag
      current += tag
      i += tag.length - 1
    } else if (ch === "'") {
      quoted = true
      current += ch
    } else if (ch === ';') {
      statements.push(current)
      current = ''
    } else current += ch
  }
  statements.push(current)
  return statements.map((s) => s.replace(/\s+/g, ' ').trim()).filter((s) => s !== '')
}

/** What in one statement is no expansion, as `kind: statement`. */
const CONTRACTS: [kind: string, test: (upper: string) => boolean][] = [
  ['drop', (s) => /\bDROP\b/.test(s)],
  ['rename', (s) => /\bRENAME\b/.test(s)],
  ['type change', (s) => /\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/.test(s)],
  ['set not null', (s) => /\bSET\s+NOT\s+NULL\b/.test(s)],
  ['not null without default', (s) => s.split(/\bADD\s+COLUMN\b/).slice(1).some((column) => /\bNOT\s+NULL\b/.test(column) && !/\bDEFAULT\b/.test(column))],
  ['truncate', (s) => /\bTRUNCATE\b/.test(s)],
]

/** The contract steps of a migration's text. Text in quotes is not read (a comment or a value may say anything). */
function contractSteps(migration: string): string[] {
  return statementsOf(migration).flatMap((statement) => {
    const upper = statement.replace(/'(?:[^']|'')*'/g, "''").toUpperCase()
    return CONTRACTS.filter(([, found]) => found(upper)).map(([kind]) => `${kind}: ${statement}`)
  })
}

describe('the scanner', () => {
  test('lets expansions through', () => {
    expect(contractSteps(`
      CREATE TABLE "a"."t" ("id" text PRIMARY KEY NOT NULL, "n" integer DEFAULT 0 NOT NULL);--> statement-breakpoint
      ALTER TABLE "a"."t" ADD COLUMN "note" text;
      ALTER TABLE "a"."t" ADD COLUMN "count" integer DEFAULT 0 NOT NULL;
      CREATE INDEX "t_n_idx" ON "a"."t" USING btree ("n");
      UPDATE "a"."t" SET "note" = 'drop; rename; truncate';
      -- DROP TABLE in a comment is not a statement
      CREATE FUNCTION "a"."f"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.n := 1; RETURN NEW; END $$;
    `)).toEqual([])
  })

  test.each([
    ['DROP TABLE "a"."t"', 'drop'],
    ['ALTER TABLE "a"."t" DROP COLUMN "n"', 'drop'],
    ['ALTER TABLE "a"."t" DROP CONSTRAINT "t_n_key"', 'drop'],
    ['DROP INDEX "a"."t_n_idx"', 'drop'],
    ['ALTER TABLE "a"."t" ALTER COLUMN "n" DROP DEFAULT', 'drop'],
    ['ALTER TABLE "a"."t" RENAME COLUMN "n" TO "m"', 'rename'],
    ['ALTER TABLE "a"."t" RENAME TO "u"', 'rename'],
    ['ALTER TABLE "a"."t" ALTER COLUMN "n" SET DATA TYPE bigint', 'type change'],
    ['ALTER TABLE "a"."t" ALTER COLUMN "n" TYPE bigint USING "n"::bigint', 'type change'],
    ['ALTER TABLE "a"."t" ALTER COLUMN "n" SET NOT NULL', 'set not null'],
    ['ALTER TABLE "a"."t" ADD COLUMN "m" integer NOT NULL', 'not null without default'],
    ['ALTER TABLE "a"."t" ADD COLUMN "k" text DEFAULT \'x\', ADD COLUMN "m" integer NOT NULL', 'not null without default'],
    ['TRUNCATE "a"."t"', 'truncate'],
    ['DO $$ BEGIN DROP TABLE "a"."t"; END $$', 'drop'],
  ])('finds %s', (statement, kind) => {
    expect(contractSteps(`CREATE TABLE "a"."v" ("id" text);--> statement-breakpoint\n${statement};`)).toEqual([`${kind}: ${statement}`])
  })
})

describe('the migrations in drizzle/', () => {
  const journal = JSON.parse(readFileSync(path.join(DRIZZLE, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] }
  const tags = journal.entries.map((e) => e.tag)

  test('are the journal\'s, every one of them', () => {
    const files = readdirSync(DRIZZLE).filter((f) => f.endsWith('.sql')).map((f) => f.slice(0, -'.sql'.length))
    expect(files.sort()).toEqual([...tags].sort())
    expect(tags.length).toBeGreaterThanOrEqual(32)
  })

  test('only expand, but for the contract steps reviewed (listed exactly)', () => {
    const found = Object.fromEntries(tags.map((tag) => [tag, contractSteps(readFileSync(path.join(DRIZZLE, `${tag}.sql`), 'utf8'))]).filter(([, steps]) => steps!.length > 0))
    expect(found).toEqual(REVIEWED)
  })
})
