/**
 * Module boundaries of DESIGN.md §2, checked on every import:
 * - the event contracts (src/contracts/events) sit below every context: any context may import
 *   them, and they import nothing but typebox and the platform's event helpers
 *   (platform/events/contract.ts); platform/ and the web app do not import them;
 * - a context imports another context only through its client.ts (its port), and only a context
 *   built before it: the order of MODULES in src/contexts/modules.ts, read from that file, so no
 *   import between context folders runs back up the list;
 * - inside a context each layer imports only the layers below it: domain/ none; store/ domain/;
 *   app/ domain/ and store/; http/ domain/ and app/ (never store/). The files at the context's root
 *   (index.ts, the module; client.ts, the port) declare and wire: they may import every layer of
 *   their own context, and other contexts as any of its files may;
 * - a folder of a context that is not a layer is a module of the context (tracking/portability)
 *   with layers of its own, held to the same rules; it builds on the context's layers, which do
 *   not import it (only the context's root files wire it);
 * - platform/ knows no context;
 * - a context's domain/ is pure: no framework, no database;
 * - a context's app/ issues no SQL and reads no database error: no database package, none of
 *   the database's error helpers (the store turns a constraint into a domain error);
 * - platform/time runs in the browser too: it imports Temporal and its own files, nothing else;
 * - the web app (web/src) takes nothing from src/ but platform/time.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const DATABASE_PACKAGES = ['drizzle-orm', 'pg', '@electric-sql/pglite']
const IMPURE_PACKAGES = [...DATABASE_PACKAGES, 'fastify', '@fastify/', 'jose', '@node-rs/']
/** What only a store may take from platform/db/database: SQL and the reading of database errors. */
const STORE_ONLY_NAMES = new Set(['sql', 'pgErrorCode', 'pgConstraint', 'UNIQUE_VIOLATION', 'refusingDuplicates'])
const TIME_PACKAGES = new Set(['temporal-polyfill'])
const CONTRACT_PACKAGES = new Set(['typebox'])
/** The platform's event helpers, all a contract builds on. */
const CONTRACT_HELPERS = 'src/platform/events/contract'
/** The file of a context another context may import: its port. */
const PORT_FILE = 'client'
/** The layers of a context each layer may import (its own included); the root files ('module') may import every one. */
const LAYERS_BELOW = {
  domain: ['domain'],
  store: ['domain', 'store'],
  app: ['domain', 'store', 'app'],
  http: ['domain', 'app', 'http'],
}

const LAYER_NAMES = new Set(Object.keys(LAYERS_BELOW))

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const MODULES_FILE = path.join(ROOT, 'src/contexts/modules.ts')

/**
 * The contexts in the order the composition root builds them: the folders of the modules listed
 * in MODULES (src/contexts/modules.ts), the one list of contexts. A module's name is its folder's.
 */
function contextOrder(source = fs.readFileSync(MODULES_FILE, 'utf8')) {
  const folderOf = new Map([...source.matchAll(/import\s*\{\s*(\w+)\s*\}\s*from\s*'\.\/([\w-]+)\/index\.js'/g)].map((m) => [m[1], m[2]]))
  const list = /export const MODULES\s*=\s*\[([^\]]*)\]/.exec(source)
  if (!list) throw new Error(`${MODULES_FILE}: no 'export const MODULES = [...]' to read the contexts' order from`)
  return list[1].split(',').map((s) => s.trim()).filter(Boolean).map((id) => {
    const folder = folderOf.get(id)
    if (!folder) throw new Error(`${MODULES_FILE}: MODULES lists '${id}', which is not imported from './<context>/index.js'`)
    return folder
  })
}

let order
const builtBefore = (a, b) => {
  order ??= contextOrder()
  const ia = order.indexOf(a)
  return ia >= 0 && ia < order.indexOf(b)
}

function where(file) {
  const relative = path.relative(process.cwd(), file)
  const parts = relative.split(path.sep)
  if (parts[0] === 'web' && parts[1] === 'src') return { area: 'web' }
  if (parts[0] !== 'src') return undefined
  const bare = relative.replace(/\.(js|ts)$/, '').split(path.sep).join('/')
  // Its tests run under vitest in Node only.
  if (parts[1] === 'platform' && parts[2] === 'time') return { area: 'platform', bare, time: !/\.test\.ts$/.test(file) }
  if (parts[1] === 'platform') return { area: 'platform', bare }
  if (parts[1] === 'contracts') return { area: 'contracts', bare }
  if (parts[1] === 'contexts' && parts.length === 4) return { area: 'context', bare, context: parts[2], layer: 'module', file: path.basename(bare) }
  if (parts[1] === 'contexts' && parts.length > 4) {
    const inContext = { area: 'context', bare, context: parts[2] }
    if (LAYER_NAMES.has(parts[3])) return { ...inContext, layer: parts[3] }
    const module = parts[3]
    if (parts.length === 5) return { ...inContext, module, layer: 'module', file: path.basename(bare) }
    return { ...inContext, module, layer: parts[4] }
  }
  return { area: 'root', bare }
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
    if (from.area === 'contracts' && !CONTRACT_PACKAGES.has(source)) report(`event contracts are plain schemas: they may import only typebox, not '${source}'.`)
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
  if (from.area === 'platform' && (to.area === 'context' || to.area === 'contracts')) {
    report(`platform/ knows no game rule: it may not import ${to.area === 'context' ? 'a context' : 'the event contracts'}.`)
  }
  if (from.area === 'contracts' && to.area !== 'contracts' && to.bare !== CONTRACT_HELPERS) {
    report(`event contracts sit below every context: they may import only the platform's event helpers (${CONTRACT_HELPERS}.ts) and typebox.`)
  }
  if (from.area !== 'context' || to.area !== 'context') return
  if (to.context !== from.context) {
    if (to.layer !== 'module' || to.file !== PORT_FILE) report(`context '${from.context}' may import context '${to.context}' only through its client.ts.`)
    else if (!builtBefore(to.context, from.context)) {
      report(`context '${from.context}' may not import context '${to.context}': a context calls only the ports of contexts built before it (MODULES in src/contexts/modules.ts: ${order.join(', ')}).`)
    }
  } else if (to.module !== undefined && to.module !== from.module && !(from.layer === 'module' && from.module === undefined)) {
    report(`the context's layers do not import its module '${to.module}': it builds on them, and the context's root files wire it.`)
  } else if (from.layer in LAYERS_BELOW && !LAYERS_BELOW[from.layer].includes(to.layer)) {
    const allowed = LAYERS_BELOW[from.layer].filter((l) => l !== from.layer)
    report(`${from.layer} code may not import its context's ${to.layer === 'module' ? `${to.file}.ts` : `${to.layer}/`}: it imports ${allowed.length > 0 ? allowed.map((l) => `${l}/`).join(' and ') : 'no other layer'} of its context.`)
  }
}

export default {
  rules: {
    'context-boundaries': {
      meta: { type: 'problem', docs: { description: 'Keep contexts, contracts, platform and layers apart' }, schema: [] },
      create: (context) => ({
        ImportDeclaration: (node) => check(context, node),
        ExportNamedDeclaration: (node) => check(context, node),
        ExportAllDeclaration: (node) => check(context, node),
        ImportExpression: (node) => check(context, { source: node.source }),
      }),
    },
  },
}
