/**
 * Problem types where clients see them: under each error status of each operation in the OpenAPI
 * document (the types its description names, each with an example body), and at the types' own
 * URIs, `/problems/<slug>`, as a page for people (HTML) or the type as JSON.
 */
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { NotFound } from '../errors.js'
import { problemTypeUri, type ProblemCatalog, type ProblemType } from './problem-types.js'

const PROBLEM_MEDIA_TYPE = 'application/problem+json'
const PROBLEM_REF = { $ref: '#/components/schemas/Problem' }
/** A slug as descriptions name it: `insufficient-funds`. */
const NAMED_SLUG = /`([a-z]+(?:-[a-z]+)*)`/g

type Operation = {
  description?: string
  security?: unknown[]
  parameters?: unknown[]
  requestBody?: unknown
  responses?: Record<string, unknown>
}

/**
 * The problem types an operation answers: those its description names, and those the document's
 * info promises of every operation alike (a token-guarded one refuses a missing or bad token; one
 * that takes input refuses fields it does not take, and a body that is not JSON).
 */
function problemTypesOf(path: string, op: Operation, catalog: ProblemCatalog): string[] {
  const named = [...(op.description ?? '').matchAll(NAMED_SLUG)].map((m) => m[1]!).filter((slug) => slug in catalog)
  const guarded = path.startsWith('/api/v1/') && !(Array.isArray(op.security) && op.security.length === 0)
  const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined
  return [...new Set([
    ...(guarded ? ['unauthorized', 'invalid-token'] : []),
    ...(takesInput ? ['validation'] : []),
    ...(op.requestBody !== undefined ? ['malformed-json'] : []),
    ...named,
  ])]
}

/**
 * The document with each operation's error responses spelled out: the problem types of that status
 * its description names, listed in the response's description and given as examples. A status
 * whose types no description names keeps the generic entry (the document test refuses that).
 */
export function documentProblemTypes<T extends { paths?: Record<string, Record<string, Operation>> }>(document: T, catalog: ProblemCatalog): T {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const op of Object.values(operations)) {
      const slugs = problemTypesOf(path, op, catalog)
      for (const status of Object.keys(op.responses ?? {})) {
        if (Number(status) < 400) continue
        const types = slugs.filter((slug) => catalog[slug]!.status === Number(status))
        if (types.length > 0) op.responses![status] = problemResponse(types, catalog)
      }
    }
  }
  return document
}

function problemResponse(slugs: string[], catalog: ProblemCatalog) {
  const examples: Record<string, unknown> = {}
  for (const slug of slugs) {
    const t = catalog[slug]!
    examples[slug] = { summary: t.title, value: { type: problemTypeUri(slug), title: t.title, status: t.status, detail: firstSentence(t.description) } }
  }
  return {
    description: slugs.map((slug) => `\`${slug}\` (${problemTypeUri(slug)}): ${catalog[slug]!.title}`).join('; '),
    content: { [PROBLEM_MEDIA_TYPE]: { schema: PROBLEM_REF, examples } },
  }
}

const firstSentence = (text: string) => text.split(/(?<=\.) /)[0] ?? text

const ProblemTypeView = Type.Object({
  type: Type.String({ description: 'The URI problem bodies carry in `type`' }),
  status: Type.Integer(),
  statusVaries: Type.Optional(Type.Boolean()),
  rule: Type.Optional(Type.Boolean({ description: 'A game rule refused a well-formed request: it is about the current state and names no field' })),
  title: Type.String(),
  description: Type.String(),
})

const view = (slug: string, t: ProblemType) => ({ type: problemTypeUri(slug), ...t })

/**
 * `GET /problems` (every type) and `GET /problems/{slug}` (one): HTML for a browser, JSON for a
 * client that asks for it (Accept: application/json).
 */
export async function serveProblemTypes(app: FastifyInstance, catalog: ProblemCatalog): Promise<void> {
  const wantsJson = (accept: string | undefined) => !!accept && /json/.test(accept) && !/text\/html/.test(accept)
  app.get('/problems', {
    schema: {
      security: [], tags: ['problems'], operationId: 'listProblemTypes',
      summary: 'Every problem type refusals carry',
      description: 'No token needed. Each type a problem+json body can carry in `type`, with its status, title and what it means. ' +
        'HTML unless the request asks for JSON (`Accept: application/json`).',
      response: { 200: Type.Array(ProblemTypeView) },
    },
  }, async (req, reply) => {
    const all = Object.entries(catalog).sort(([a], [b]) => a.localeCompare(b))
    if (wantsJson(req.headers.accept)) return all.map(([slug, t]) => view(slug, t))
    return reply.type('text/html; charset=utf-8').serializer(String).send(indexPage(all))
  })
  app.get('/problems/:slug', {
    schema: {
      security: [], tags: ['problems'], operationId: 'getProblemType',
      summary: 'What one problem type means',
      description: 'No token needed. The page at a problem type\'s URI: its status, title and what it means. HTML unless the ' +
        'request asks for JSON (`Accept: application/json`); 404 `not-found` for a type the API never answers.',
      params: Type.Object({ slug: Type.String({ pattern: '^[a-z]+(-[a-z]+)*$', maxLength: 64 }) }),
      response: { 200: ProblemTypeView, 404: Type.Ref('Problem') },
    },
  }, async (req, reply) => {
    const { slug } = req.params as { slug: string }
    const t = catalog[slug]
    if (!t) throw new NotFound('Problem type', slug)
    if (wantsJson(req.headers.accept)) return view(slug, t)
    return reply.type('text/html; charset=utf-8').serializer(String).send(typePage(slug, t))
  })
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
/** A description's `code` spans as <code>. */
const prose = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>')

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)} · Questline API</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}` +
    `code{background:#f3f3f3;padding:0 .2em}dt{font-weight:600;margin-top:1rem}</style></head><body>${body}</body></html>`
}

function typePage(slug: string, t: ProblemType): string {
  return page(t.title, `<p><a href="/problems">Problem types</a> · <a href="/docs">API docs</a></p><h1>${escapeHtml(t.title)}</h1>` +
    `<p><code>type: "${problemTypeUri(slug)}"</code>, status ${t.status}${t.statusVaries ? ' (or another, as the occurrence says)' : ''}</p>` +
    `<p>${prose(t.description)}</p>${t.rule ? '<p>A game rule refused a well-formed request: the refusal is about the current state, so it names no field.</p>' : ''}<p>The body is RFC 9457 <code>application/problem+json</code>: <code>type</code>, <code>title</code>, ` +
    `<code>status</code>, <code>detail</code> (this occurrence), <code>instance</code> (the path asked), and <code>errors</code> ` +
    `(<code>[{path, message}]</code>) when fields are at fault.</p>`)
}

function indexPage(all: [string, ProblemType][]): string {
  const items = all.map(([slug, t]) => `<dt><a href="${problemTypeUri(slug)}">${escapeHtml(slug)}</a> · ${t.status} ${escapeHtml(t.title)}</dt><dd>${prose(t.description)}</dd>`)
  return page('Problem types', `<p><a href="/docs">API docs</a></p><h1>Problem types</h1><p>Every <code>type</code> a refusal of the ` +
    `Questline API carries, <code>/problems/&lt;slug&gt;</code>.</p><dl>${items.join('')}</dl>`)
}
