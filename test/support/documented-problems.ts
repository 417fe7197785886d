/**
 * Every refusal the suites see is one the API documents: its `type` is a problem type served at
 * /problems (with that status, unless the type says its status varies), its `title` is the
 * type's, and a 400 names the fields at fault unless a game rule refused it. Wrapped around every test app's inject, so the whole black-box suite holds the catalog
 * to what the platform really answers, in every shape.
 */
import { problemTypeSlug } from '../../src/platform/http/problem-types.js'
import { PROBLEM_TYPES } from '../../src/server.js'

/** What is read of an answer (fastify's inject, or a request over HTTP answered alike). */
interface InjectResponse {
  statusCode: number
  headers: Record<string, unknown>
  body: string
}

/** Why the answer is not a documented refusal (undefined when it is one, or not a refusal). */
function undocumentedProblem(res: InjectResponse): string | undefined {
  if (!String(res.headers['content-type'] ?? '').startsWith('application/problem+json')) return undefined
  let body: { type?: unknown; title?: unknown; status?: unknown; errors?: unknown }
  try {
    body = JSON.parse(res.body)
  } catch {
    return `a problem+json body that is not JSON: ${res.body.slice(0, 200)}`
  }
  const slug = problemTypeSlug(body.type)
  const known = slug === undefined ? undefined : PROBLEM_TYPES[slug]
  if (!known) return `the problem type ${JSON.stringify(body.type)} is not documented at /problems: ${res.body.slice(0, 300)}`
  if (body.title !== known.title) return `${body.type} is titled ${JSON.stringify(body.title)}, not its type's ${JSON.stringify(known.title)}`
  if (!known.statusVaries && (body.status !== known.status || res.statusCode !== known.status)) {
    return `${body.type} answered with ${res.statusCode} (body ${String(body.status)}), not its type's ${known.status}`
  }
  const namesFields = Array.isArray(body.errors) && body.errors.length > 0
  if (res.statusCode === 400 && !known.rule && !namesFields) return `${body.type} is a 400 that names no field, and not a game rule's: ${res.body.slice(0, 300)}`
  return undefined
}

/** `inject` whose answers are checked: a promise that fails when a refusal is not documented. */
export function withDocumentedProblems<F extends (...args: never[]) => unknown>(inject: F): F {
  return ((...args: Parameters<F>) => {
    const result = inject(...args) as PromiseLike<InjectResponse> | undefined
    // Called with no options, inject answers a chain that the caller completes; with a callback, nothing.
    if (args.length === 0 || typeof result?.then !== 'function') return result
    return Promise.resolve(result).then((res) => {
      const fault = undocumentedProblem(res)
      if (fault) throw new Error(`Undocumented refusal: ${fault}`)
      return res
    })
  }) as F
}
