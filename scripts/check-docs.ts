/**
 * The docs check (`npm run docs:check`, run by .ci/run): fails when the documentation drifts from
 * the code. It checks that
 *  - every relative link and image in README.md and docs/ resolves to a file inside the
 *    repository, and every `#anchor` to a heading of its target (GitHub's anchors);
 *  - every `npm run <script>` (and `npm start`, `npm test`) they name is in package.json;
 *  - docs/configuration.md lists every setting src/config.ts reads, and nothing else, and the
 *    README's settings are among them;
 *  - every documentation path the command line's messages name (src/ and bin/, tests aside)
 *    resolves, anchor included, and they name no README section and no unknown npm script;
 *  - docs/operations.md's table of periodic jobs lists every job src/ declares (a `…_JOB = 'name'`
 *    constant, as every job's name is), and nothing else;
 *  - the README stays within README_MAX_LINES lines.
 * The checks are pure functions over a `Repo` (scripts/check-docs.test.ts gives them a broken one).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const README_MAX_LINES = 200
const CONFIGURATION_DOC = 'docs/configuration.md'
const OPERATIONS_DOC = 'docs/operations.md'
const JOBS_HEADING = '## Periodic jobs'

export interface Finding {
  file: string
  line: number
  message: string
}

/** The repository as the checks see it: paths relative to its root, with `/`. */
export interface Repo {
  exists(rel: string): boolean
  read(rel: string): string | undefined
}

/** Each line of a Markdown text outside fenced code blocks, with its number (from 1). */
function proseLines(markdown: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = []
  let fence: string | undefined
  markdown.split('\n').forEach((text, i) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(text)
    if (opener) {
      if (fence === undefined) fence = opener[1]![0]
      else if (opener[1]![0] === fence) fence = undefined
      return
    }
    if (fence === undefined) out.push({ text, line: i + 1 })
  })
  return out
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, '')
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
}

/** Every anchor a Markdown text offers: its headings' (a repeated one gets -1, -2, …) and `<a id|name>`. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)
    if (heading) {
      const slug = githubSlug(heading[1]!)
      const n = seen.get(slug) ?? 0
      seen.set(slug, n + 1)
      anchors.add(n === 0 ? slug : `${slug}-${n}`)
    }
    for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!)
  }
  return anchors
}

/** The targets of a Markdown text's links and images, outside code. */
export function markdownLinks(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = []
  for (const { text, line } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, '')
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1]!, line })
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(prose)
    if (definition) out.push({ target: definition[1]!, line })
  }
  return out
}

/** Whether a link leaves the repository (a URL of any scheme, or protocol-relative). */
const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')

/** Problems with one link of `file`, or none. */
export function checkLink(repo: Repo, file: string, target: string): string | undefined {
  if (isExternal(target)) return undefined
  const hash = target.indexOf('#')
  const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? undefined : target.slice(hash + 1)
  if (pathPart.startsWith('/')) return `${target}: an absolute path; link relative to ${file}`
  const resolved = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart)).replace(/\/$/, '')
  if (resolved === '..' || resolved.startsWith('../')) return `${target}: leaves the repository`
  if (!repo.exists(resolved)) return `${target}: ${resolved} does not exist`
  if (anchor === undefined || anchor === '' || !resolved.endsWith('.md')) return undefined
  const anchors = headingAnchors(repo.read(resolved) ?? '')
  if (!anchors.has(anchor)) return `${target}: ${resolved} has no heading with the anchor #${anchor}`
  return undefined
}

/** Every link of every file given that does not resolve. */
export function checkLinks(repo: Repo, files: readonly string[]): Finding[] {
  const findings: Finding[] = []
  for (const file of files) {
    for (const { target, line } of markdownLinks(repo.read(file) ?? '')) {
      const problem = checkLink(repo, file, target)
      if (problem) findings.push({ file, line, message: problem })
    }
  }
  return findings
}

/** The npm scripts a text names: `npm run [--flags] <name>`, and `npm start` / `npm test`. */
export function npmScriptsNamed(text: string): { name: string; line: number }[] {
  const out: { name: string; line: number }[] = []
  text.split('\n').forEach((content, i) => {
    for (const m of content.matchAll(/\bnpm run(?:\s+--?[a-z-]+)*\s+([A-Za-z0-9][A-Za-z0-9:_.-]*)/g)) out.push({ name: m[1]!, line: i + 1 })
    for (const m of content.matchAll(/\bnpm (start|test)\b/g)) out.push({ name: m[1]!, line: i + 1 })
  })
  return out
}

export function checkNpmScripts(file: string, text: string, scripts: Readonly<Record<string, string>>): Finding[] {
  return npmScriptsNamed(text)
    .filter(({ name }) => !Object.hasOwn(scripts, name))
    .map(({ name, line }) => ({ file, line, message: `npm run ${name}: package.json has no such script` }))
}

/** A setting's name as the docs write it: `PORT`, `UPSTREAM_<CONTEXT>`. */
const SETTING = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*(?:_<CONTEXT>)?$/

/** The settings a Markdown text's tables list: the names in code in each row's first cell. */
export function settingsListed(markdown: string): { name: string; line: number }[] {
  const out: { name: string; line: number }[] = []
  for (const { text, line } of proseLines(markdown)) {
    const row = /^\s*\|([^|]*)\|/.exec(text)
    if (!row) continue
    for (const m of row[1]!.matchAll(/`([^`]+)`/g)) if (SETTING.test(m[1]!)) out.push({ name: m[1]!, line })
  }
  return out
}

/**
 * The settings `load` (src/config.ts's loadConfig) reads from an empty environment, and the
 * per-context families its source declares (`perContext(env, 'UPSTREAM', …)` → `UPSTREAM_<CONTEXT>`).
 */
export function settingsRead(load: (env: Record<string, string | undefined>) => unknown, configSource: string): string[] {
  const read = new Set<string>()
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(target, key) {
      if (typeof key === 'string' && SETTING.test(key)) read.add(key)
      return Reflect.get(target, key)
    },
  })
  load(env)
  for (const m of configSource.matchAll(/perContext\(\s*env,\s*'([A-Z][A-Z0-9_]*)'/g)) read.add(`${m[1]}_<CONTEXT>`)
  return [...read].sort()
}

/** configuration.md against what the code reads: both ways. */
export function checkSettings(file: string, listed: readonly { name: string; line: number }[], read: readonly string[]): Finding[] {
  const findings: Finding[] = []
  const names = new Set(listed.map((s) => s.name))
  for (const name of read) {
    if (!names.has(name)) findings.push({ file, line: 1, message: `${name} is read by src/config.ts but not listed` })
  }
  for (const { name, line } of listed) {
    if (!read.includes(name)) findings.push({ file, line, message: `${name} is listed but src/config.ts does not read it` })
  }
  return findings
}

/** Documentation paths a source file names (`docs/operations.md#backups`, `README.md`), and README sections named by title. */
export function docPathsNamed(source: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = []
  source.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/(?<![\w/.-])((?:docs\/[\w./-]+?\.(?:md|png))|README\.md|LICENSE)(#[\w-]+)?/g)) out.push({ target: m[1]! + (m[2] ?? ''), line: i + 1 })
  })
  return out
}

/** What the command line's messages name: documentation that exists, no README section by title, npm scripts that exist. */
export function checkSourcePointers(repo: Repo, file: string, source: string, scripts: Readonly<Record<string, string>>): Finding[] {
  const findings: Finding[] = []
  for (const { target, line } of docPathsNamed(source)) {
    // A path in the source is from the repository's root.
    const problem = checkLink(repo, 'README.md', target)
    if (problem) findings.push({ file, line, message: problem })
  }
  source.split('\n').forEach((text, i) => {
    if (/\bREADME\b(?!\.md)/.test(text)) findings.push({ file, line: i + 1, message: 'names the README: point to a docs/ file and its anchor (docs/operations.md#backups)' })
  })
  return [...findings, ...checkNpmScripts(file, source, scripts)]
}

/** The jobs a source file declares: `export const SOME_JOB = 'context.name'`. */
export function jobsDeclared(source: string): string[] {
  return [...source.matchAll(/^export const [A-Z][A-Z_]*_JOB = '([^']+)'/gm)].map((m) => m[1]!)
}

/** The jobs the table under `## Periodic jobs` lists, by the first cell of each row (`name`). */
export function jobsListed(markdown: string): { name: string; line: number }[] {
  const lines = markdown.split('\n')
  const start = lines.findIndex((l) => l.trim() === JOBS_HEADING)
  if (start === -1) return []
  const out: { name: string; line: number }[] = []
  for (let i = start + 1; i < lines.length && !lines[i]!.startsWith('## '); i++) {
    const cell = /^\|\s*`([^`]+)`\s*\|/.exec(lines[i]!)
    if (cell) out.push({ name: cell[1]!, line: i + 1 })
  }
  return out
}

export function checkJobs(file: string, listed: readonly { name: string; line: number }[], declared: readonly string[]): Finding[] {
  const names = new Set(listed.map((j) => j.name))
  return [
    ...declared.filter((name) => !names.has(name)).map((name) => ({ file, line: 1, message: `the job ${name} is missing from the table under "${JOBS_HEADING}"` })),
    ...listed.filter((j) => !declared.includes(j.name)).map((j) => ({ file, line: j.line, message: `${j.name} is listed but src/ declares no such job` })),
  ]
}

export function checkReadmeLength(text: string, max = README_MAX_LINES): Finding[] {
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
  return lines > max ? [{ file: 'README.md', line: max + 1, message: `the README has ${lines} lines; keep it within ${max}` }] : []
}

// ---- the repository on disk ----

const ROOT = fileURLToPath(new URL('..', import.meta.url))

const diskRepo: Repo = {
  exists: (rel) => existsSync(path.join(ROOT, rel)),
  read: (rel) => {
    const file = path.join(ROOT, rel)
    return existsSync(file) && statSync(file).isFile() ? readFileSync(file, 'utf8') : undefined
  },
}

function filesUnder(rel: string, keep: (name: string) => boolean): string[] {
  const dir = path.join(ROOT, rel)
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const child = `${rel}/${entry.name}`
    if (entry.isDirectory()) return filesUnder(child, keep)
    return keep(entry.name) ? [child] : []
  })
}

async function main(): Promise<number> {
  const docs = ['README.md', ...filesUnder('docs', (name) => name.endsWith('.md')).sort()]
  const scripts = (JSON.parse(diskRepo.read('package.json')!) as { scripts: Record<string, string> }).scripts
  const { loadConfig } = await import('../src/config.js')
  const configSource = diskRepo.read('src/config.ts')!
  const read = settingsRead((env) => loadConfig(env), configSource)
  const sources = [
    ...filesUnder('src', (name) => name.endsWith('.ts') && !name.endsWith('.test.ts')),
    ...filesUnder('bin', (name) => name.endsWith('.js')),
  ].sort()

  const findings: Finding[] = [
    ...checkLinks(diskRepo, docs),
    ...docs.flatMap((file) => checkNpmScripts(file, diskRepo.read(file)!, scripts)),
    ...checkSettings(CONFIGURATION_DOC, settingsListed(diskRepo.read(CONFIGURATION_DOC) ?? ''), read),
    ...settingsListed(diskRepo.read('README.md')!).filter((s) => !read.includes(s.name))
      .map(({ name, line }) => ({ file: 'README.md', line, message: `${name} is listed but src/config.ts does not read it` })),
    ...sources.flatMap((file) => checkSourcePointers(diskRepo, file, diskRepo.read(file)!, scripts)),
    ...checkJobs(OPERATIONS_DOC, jobsListed(diskRepo.read(OPERATIONS_DOC) ?? ''), sources.flatMap((file) => jobsDeclared(diskRepo.read(file)!))),
    ...checkReadmeLength(diskRepo.read('README.md')!),
  ]
  for (const f of findings) console.error(`${f.file}:${f.line}: ${f.message}`)
  const jobs = jobsListed(diskRepo.read(OPERATIONS_DOC) ?? '').length
  const links = docs.reduce((n, file) => n + markdownLinks(diskRepo.read(file)!).length, 0)
  console.log(`docs check: ${docs.length} documents, ${links} links, ${read.length} settings, ${sources.length} source files, ${jobs} jobs: ` +
    (findings.length === 0 ? 'no findings' : `${findings.length} finding${findings.length === 1 ? '' : 's'}`))
  return findings.length === 0 ? 0 : 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then((code) => process.exit(code), (e: unknown) => {
    console.error(e)
    process.exit(1)
  })
}
