/**
 * The docs check catches what it is for: a broken link, a missing anchor, an unknown npm script, a
 * setting listed or read on one side only, a message pointing at a README section. Each case is a
 * small repository in memory, with the finding written out by hand.
 */
import { describe, expect, test } from 'vitest'
import {
  checkJobs, checkLinks, checkReadmeLength, checkSettings, checkSourcePointers, githubSlug, headingAnchors, jobsDeclared, jobsListed, settingsListed,
  settingsRead, type Repo,
} from './check-docs.js'

function repoOf(files: Record<string, string>, dirs: string[] = []): Repo {
  return {
    exists: (rel) => rel in files || dirs.includes(rel),
    read: (rel) => files[rel],
  }
}

const OPERATIONS = '# Operations\n\n## Backups\n\ntext\n\n## Split services\n\n## Backups\n'

describe('links', () => {
  test('a link to a file that exists, with an anchor its headings give, passes', () => {
    const repo = repoOf({
      'README.md': 'See [operations](docs/operations.md#backups), [split](docs/operations.md#split-services) and [the page](docs/operations.md).\n',
      'docs/operations.md': OPERATIONS,
    })
    expect(checkLinks(repo, ['README.md'])).toEqual([])
  })

  test('a link to a file that does not exist is a finding, with its line', () => {
    const repo = repoOf({ 'README.md': '# Title\n\nSee [backups](docs/backups.md).\n' })
    expect(checkLinks(repo, ['README.md'])).toEqual([
      { file: 'README.md', line: 3, message: 'docs/backups.md: docs/backups.md does not exist' },
    ])
  })

  test('an anchor no heading of the target gives is a finding', () => {
    const repo = repoOf({ 'README.md': '[x](docs/operations.md#restore)\n', 'docs/operations.md': OPERATIONS })
    expect(checkLinks(repo, ['README.md'])).toEqual([
      { file: 'README.md', line: 1, message: 'docs/operations.md#restore: docs/operations.md has no heading with the anchor #restore' },
    ])
  })

  test('links resolve from the linking file, and may not leave the repository or be absolute', () => {
    const repo = repoOf({
      'docs/api.md': '[readme](../README.md#runtime-shapes) [up](../../shared/DESIGN.md) [abs](/docs/x.md) [here](#errors)\n\n## Errors\n',
      'README.md': '## Runtime shapes\n',
    })
    expect(checkLinks(repo, ['docs/api.md']).map((f) => f.message)).toEqual([
      '../../shared/DESIGN.md: leaves the repository',
      '/docs/x.md: an absolute path; link relative to docs/api.md',
    ])
  })

  test('links in code are not links; URLs are not checked; images are', () => {
    const repo = repoOf({
      'README.md': '```\n[x](nowhere.md)\n```\n`[y](nowhere.md)` [web](https://example.com/a.md) ![shot](docs/images/today.png)\n',
    })
    expect(checkLinks(repo, ['README.md'])).toEqual([
      { file: 'README.md', line: 4, message: 'docs/images/today.png: docs/images/today.png does not exist' },
    ])
  })
})

describe('anchors', () => {
  test('are GitHub\'s: lower case, punctuation and code marks dropped, a repeat numbered', () => {
    expect(githubSlug('`npm run bench:split`: split services against all-in-one')).toBe('npm-run-benchsplit-split-services-against-all-in-one')
    expect(githubSlug('Your data: export and import')).toBe('your-data-export-and-import')
    expect([...headingAnchors(OPERATIONS)]).toEqual(['operations', 'backups', 'split-services', 'backups-1'])
  })
})

describe('npm scripts and source pointers', () => {
  const scripts = { start: 'node bin/questline.js serve', 'docs:check': 'tsx scripts/check-docs.ts' }
  const repo = repoOf({ 'docs/operations.md': OPERATIONS, 'README.md': '# Questline\n' })

  test('a message naming a docs path that resolves, and a script that exists, passes', () => {
    const source = "throw new Failure('Back it up with pg_dump (see docs/operations.md#backups); or run npm run docs:check')"
    expect(checkSourcePointers(repo, 'src/operator/commands.ts', source, scripts)).toEqual([])
  })

  test('a missing page, a missing anchor, a README section by title and an unknown script are findings', () => {
    const source = [
      "fail('see docs/backups.md')",
      "fail('see docs/operations.md#restore')",
      'fail(\'Back it up with pg_dump (README, "Backups")\')',
      "fail('run npm run build:everything')",
    ].join('\n')
    expect(checkSourcePointers(repo, 'src/x.ts', source, scripts)).toEqual([
      { file: 'src/x.ts', line: 1, message: 'docs/backups.md: docs/backups.md does not exist' },
      { file: 'src/x.ts', line: 2, message: 'docs/operations.md#restore: docs/operations.md has no heading with the anchor #restore' },
      { file: 'src/x.ts', line: 3, message: 'names the README: point to a docs/ file and its anchor (docs/operations.md#backups)' },
      { file: 'src/x.ts', line: 4, message: 'npm run build:everything: package.json has no such script' },
    ])
  })
})

describe('settings', () => {
  const config = [
    "    port: integer(env, 'PORT', 8080, 0, 65535),",
    "    upstreams: perContext(env, 'UPSTREAM', (name) => urlList(env, name)),",
  ].join('\n')
  const load = (env: Record<string, string | undefined>) => ({ port: env.PORT ?? '8080', timeout: env.SERVICE_CALL_TIMEOUT_MS ?? env.AVATAR_TIMEOUT_MS })

  test('what the loader reads from an empty environment, and the per-context families of its source', () => {
    expect(settingsRead(load, config)).toEqual(['AVATAR_TIMEOUT_MS', 'PORT', 'SERVICE_CALL_TIMEOUT_MS', 'UPSTREAM_<CONTEXT>'])
  })

  test('listed and read on one side only are findings, both ways', () => {
    const doc = [
      '| variable | default |',
      '|---|---|',
      '| `PORT` | `8080` |',
      '| `SERVICE_CALL_TIMEOUT_MS` (older name `AVATAR_TIMEOUT_MS`) | `2000` |',
      '| `HOSTNAME` | unset |',
    ].join('\n')
    const listed = settingsListed(doc)
    expect(listed.map((s) => s.name)).toEqual(['PORT', 'SERVICE_CALL_TIMEOUT_MS', 'AVATAR_TIMEOUT_MS', 'HOSTNAME'])
    expect(checkSettings('docs/configuration.md', listed, settingsRead(load, config))).toEqual([
      { file: 'docs/configuration.md', line: 1, message: 'UPSTREAM_<CONTEXT> is read by src/config.ts but not listed' },
      { file: 'docs/configuration.md', line: 5, message: 'HOSTNAME is listed but src/config.ts does not read it' },
    ])
  })
})

test('a README over the limit is a finding', () => {
  expect(checkReadmeLength('a\nb\n', 2)).toEqual([])
  expect(checkReadmeLength('a\nb\nc\n', 2)).toEqual([{ file: 'README.md', line: 3, message: 'the README has 3 lines; keep it within 2' }])
})

describe('periodic jobs', () => {
  const doc = '# Operations\n\n## Periodic jobs\n\n| job | every |\n|---|---|\n| `tracking.reminders` | minute |\n| `old.job` | hour |\n\n## Retention\n\n| `not.a.job` | x |\n'
  const source = "export const REMINDERS_JOB = 'tracking.reminders'\nexport const LEAGUE_CLOSE_JOB = 'league-close-seasons'\nconst OTHER = 'x'\n"

  test('the table is read under its heading only; the jobs from their constants', () => {
    expect(jobsListed(doc)).toEqual([{ name: 'tracking.reminders', line: 7 }, { name: 'old.job', line: 8 }])
    expect(jobsDeclared(source)).toEqual(['tracking.reminders', 'league-close-seasons'])
  })

  test('a job declared and not listed, or listed and not declared, is a finding', () => {
    expect(checkJobs('docs/operations.md', jobsListed(doc), jobsDeclared(source))).toEqual([
      { file: 'docs/operations.md', line: 1, message: 'the job league-close-seasons is missing from the table under "## Periodic jobs"' },
      { file: 'docs/operations.md', line: 8, message: 'old.job is listed but src/ declares no such job' },
    ])
    expect(checkJobs('docs/operations.md', [{ name: 'tracking.reminders', line: 7 }], ['tracking.reminders'])).toEqual([])
  })
})
