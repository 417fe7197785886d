/**
 * Problem types where clients see them: under each error status of each operation in the OpenAPI
 * document (the types its description names, each with an example body), and at the types' own
 * URIs, `/problems/<slug>`, as JSON or, for a browser, a page for people (HTML).
 */
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { NotFound } from '../errors.js'
import { problemTypeUri, type ProblemCatalog, type ProblemType } from './problem-types.js'

const PROBLEM_MEDIA_TYPE = 'application/problem+json'
const PROBLEM_REF = { $ref: '#/components/schemas/Problem' }
/** A slug as descriptions name it: `insufficient-funds`. */
const NAMED_SLUG = /`([a-z]+(?:-[a-z]+)*)`/g

type Operation = {
  description?: string
  security?: unknown[]
  parameters?: { in?: string }[]
  requestBody?: unknown
  responses?: Record<string, unknown>
}

/** The methods whose bodies are read (and so judged: their syntax, size and media type), whether or not the operation takes one. */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete'])

/**
 * What the platform refuses of any operation, by what the operation takes (problems.ts, validation.ts,
 * the router): a missing or bad token where one is needed; text no field can hold in the query
 * string, which every operation refuses whatever it declares (`validation`); a player's token on a
 * route only services call (`service-only`); a path parameter longer
 * than the router reads or badly escaped; a body that is not JSON, too large or of another media
 * type, on every method whose body is read.
 */
function platformProblemTypes(path: string, method: string, op: Operation): string[] {
  const internal = path.startsWith('/internal/')
  const guarded = (internal || path.startsWith('/api/v1/')) && !(Array.isArray(op.security) && op.security.length === 0)
  const pathParams = op.parameters?.some((p) => p.in === 'path') ?? false
  const body = op.requestBody !== undefined || BODY_METHODS.has(method)
  return [
    ...(guarded ? ['unauthorized', 'invalid-token'] : []),
    // Routes only services call refuse a player's token whatever else the request holds.
    ...(internal ? ['service-only'] : []),
    'validation',
    ...(pathParams ? ['malformed-request', 'uri-too-long'] : []),
    ...(body ? ['malformed-json', 'malformed-request', 'payload-too-large', 'unsupported-media-type'] : []),
  ]
}

/** The problem types an operation's description names. */
const namedProblemTypes = (op: Operation, catalog: ProblemCatalog) =>
  [...(op.description ?? '').matchAll(NAMED_SLUG)].map((m) => m[1]!).filter((slug) => slug in catalog)

/**
 * The document with each operation's error responses spelled out: every status the platform answers
 * for what the operation takes (above), beside those its route declares; under each, the problem
 * types of that status, listed in the response's description and given as examples. A status whose
 * types no description names keeps the generic entry (the document test refuses that).
 */
export function documentProblemTypes<T extends { paths?: Record<string, Record<string, Operation>> }>(document: T, catalog: ProblemCatalog): T {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(operations)) {
      const platform = platformProblemTypes(path, method, op)
      const slugs = [...new Set([...platform, ...namedProblemTypes(op, catalog)])]
      const responses = (op.responses ??= {})
      const statuses = new Set([...Object.keys(responses).map(Number), ...platform.map((slug) => catalog[slug]!.status)])
      for (const status of statuses) {
        if (status < 400) continue
        const types = slugs.filter((slug) => catalog[slug]!.status === status)
        if (types.length > 0) responses[status] = problemResponse(types, catalog)
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

/** The weight an Accept header gives a media type: that of its most specific range that matches (0 when none does). */
function acceptWeight(accept: string, type: string): number {
  const anyOfKind = `${type.split('/')[0]}/*`
  let specificity = -1
  let weight = 0
  for (const part of accept.toLowerCase().split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim())
    const rank = range === type ? 2 : range === anyOfKind ? 1 : range === '*/*' ? 0 : -1
    if (rank <= specificity) continue
    specificity = rank
    const q = params.find((p) => p.startsWith('q='))
    weight = q === undefined ? 1 : Number(q.slice(2)) || 0
  }
  return weight
}

/** JSON unless the client prefers HTML to it (a browser does, following a problem's `type` to its page). */
const wantsHtml = (accept: string | undefined) => !!accept && acceptWeight(accept, 'text/html') > acceptWeight(accept, 'application/json')

const JSON_TYPE = 'application/json; charset=utf-8'
const HTML_TYPE = 'text/html; charset=utf-8'
/** A 200 of these pages: the JSON `schema`, or a page for people. */
const jsonOrPage = (schema: TSchema, description: string) => ({
  description,
  content: { 'application/json': { schema }, 'text/html': { schema: Type.String({ description: 'The same, as a page for people' }) } },
})
const NEGOTIATED = 'JSON, or a page for people (HTML) when the request prefers `text/html` (as a browser following a problem\'s `type` does).'

/** `GET /problems` (every type) and `GET /problems/{slug}` (one): JSON, or HTML for a browser. */
export async function serveProblemTypes(app: FastifyInstance, catalog: ProblemCatalog): Promise<void> {
  app.get('/problems', {
    schema: {
      security: [], tags: ['problems'], operationId: 'listProblemTypes',
      summary: 'Every problem type refusals carry',
      description: 'No token needed. Each type a problem+json body can carry in `type`, with its status, title and what it means. ' +
        NEGOTIATED,
      response: { 200: jsonOrPage(Type.Array(ProblemTypeView), 'Every problem type, by slug') },
    },
  }, async (req, reply) => {
    const all = Object.entries(catalog).sort(([a], [b]) => a.localeCompare(b))
    if (!wantsHtml(req.headers.accept)) return reply.type(JSON_TYPE).send(all.map(([slug, t]) => view(slug, t)))
    return reply.type(HTML_TYPE).serializer(String).send(indexPage(all))
  })
  app.get('/problems/:slug', {
    schema: {
      security: [], tags: ['problems'], operationId: 'getProblemType',
      summary: 'What one problem type means',
      description: 'No token needed. What is at a problem type\'s URI: its status, title and what it means. ' +
        `${NEGOTIATED} 404 \`not-found\` for a type the API never answers.`,
      params: Type.Object({ slug: Type.String({ pattern: '^[a-z]+(-[a-z]+)*$', maxLength: 64 }) }),
      response: { 200: jsonOrPage(ProblemTypeView, 'The problem type'), 404: Type.Ref('Problem') },
    },
  }, async (req, reply) => {
    const { slug } = req.params as { slug: string }
    const t = catalog[slug]
    if (!t) throw new NotFound('Problem type', slug)
    if (!wantsHtml(req.headers.accept)) return reply.type(JSON_TYPE).send(view(slug, t))
    return reply.type(HTML_TYPE).serializer(String).send(typePage(slug, t))
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
