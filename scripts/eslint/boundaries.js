/**
 * Module boundaries of DESIGN.md §2, checked on every import:
 * - a context imports another context only through its client.ts or events.ts;
 * - platform/ knows no context;
 * - a context's domain/ is pure: no framework, no database, no other layer of its context;
 * - a context's app/ issues no SQL and reads no database error: no database package, none of
 *   the database's error helpers (the store turns a constraint into a domain error);
 * - a module inside a context (src/contexts/<context>/<module>/, with domain/ app/ http/ store/
 *   of its own) has its layers checked as the context's are; it builds on the context's layers,
 *   which do not import it: the context's index.ts and client.ts wire it;
 * - platform/time runs in the browser too: it imports Temporal and its own files, nothing else;
 * - the web app (web/src) takes nothing from src/ but platform/time.
 */
import path from 'node:path'

const DATABASE_PACKAGES = ['drizzle-orm', 'pg', '@electric-sql/pglite']
const IMPURE_PACKAGES = [...DATABASE_PACKAGES, 'fastify', '@fastify/', 'jose', '@node-rs/']
/** What only a store may take from platform/db/database: SQL and the reading of database errors. */
const STORE_ONLY_NAMES = new Set(['sql', 'pgErrorCode', 'pgConstraint', 'UNIQUE_VIOLATION', 'refusingDuplicates'])
const PUBLIC_FILES = new Set(['client', 'events'])
const TIME_PACKAGES = new Set(['temporal-polyfill'])
const LAYERS = new Set(['domain', 'app', 'http', 'store'])

function where(file) {
  const parts = path.relative(process.cwd(), file).split(path.sep)
  if (parts[0] === 'web' && parts[1] === 'src') return { area: 'web' }
  if (parts[0] !== 'src') return undefined
  // Its tests run under vitest in Node only.
  if (parts[1] === 'platform' && parts[2] === 'time') return { area: 'platform', time: !/\.test\.ts$/.test(file) }
  if (parts[1] === 'platform') return { area: 'platform' }
  if (parts[1] === 'contexts' && parts.length > 3) {
    const context = { area: 'context', context: parts[2], rest: parts.slice(3) }
    // A folder of the context that is not a layer (and not a file) is a module of the context, with layers of its own.
    if (parts.length > 4 && !LAYERS.has(parts[3])) return { ...context, module: parts[3], layer: parts.length > 5 ? parts[4] : undefined }
    return { ...context, layer: parts[3] }
  }
  return { area: 'root' }
}

function check(context, node) {
  const source = node.source?.value
  if (typeof source !== 'string') return
  const from = where(context.filename)
  if (!from) return
  const report = (message) => context.report({ node: node.source, message })

  if (!source.startsWith('.')) {
    if (from.area === 'context' && from.layer === 'domain' && IMPURE_PACKAGES.some((p) => source === p || source.startsWith(p))) {
      report(`domain code is pure: it may not import '${source}'.`)
    }
    if (from.area === 'context' && from.layer === 'app' && DATABASE_PACKAGES.some((p) => source === p || source.startsWith(`${p}/`))) {
      report(`app code issues no SQL: it may not import '${source}'; queries belong in the context's store/.`)
    }
    if (from.time && !TIME_PACKAGES.has(source)) report(`platform/time runs in the browser too: it may not import '${source}'.`)
    return
  }
  if (from.area === 'context' && from.layer === 'app') {
    const taken = (node.specifiers ?? []).map((s) => s.imported?.name ?? s.local?.name).filter((n) => STORE_ONLY_NAMES.has(n))
    if (taken.length > 0) report(`app code reads no database error: '${taken[0]}' belongs in the context's store/, which turns a constraint into a domain error.`)
  }
  const to = where(path.resolve(path.dirname(context.filename), source))
  if (from.time && !to?.time) report('platform/time runs in the browser too: it imports only its own files.')
  if (from.area === 'web' && to && to.area !== 'web' && !to.time) report('the web app takes only platform/time from src/.')
  if (!to) return
  if (from.area === 'platform' && to.area === 'context') report('platform/ knows no game rule: it may not import a context.')
  if (from.area !== 'context' || to.area !== 'context') return
  if (to.context !== from.context) {
    const file = to.rest.join('/').replace(/\.(js|ts)$/, '')
    if (!PUBLIC_FILES.has(file)) report(`context '${from.context}' may import context '${to.context}' only through its client.ts or events.ts.`)
  } else if (from.layer === 'domain' && ['app', 'http', 'store'].includes(to.layer)) {
    report(`domain code may not import its context's ${to.layer}/ layer.`)
  } else if (LAYERS.has(from.layer) && to.module !== undefined && to.module !== from.module) {
    report(`the context's layers do not import its module '${to.module}': it builds on them, and the context's index.ts and client.ts wire it.`)
  }
}

export default {
  rules: {
    'context-boundaries': {
      meta: { type: 'problem', docs: { description: 'Keep contexts, platform and domain layers apart' }, schema: [] },
      create: (context) => ({
        ImportDeclaration: (node) => check(context, node),
        ExportNamedDeclaration: (node) => check(context, node),
        ExportAllDeclaration: (node) => check(context, node),
        ImportExpression: (node) => check(context, { source: node.source }),
      }),
    },
  },
}
