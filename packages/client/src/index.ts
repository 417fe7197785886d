/**
 * A typed client of the Questline API: openapi-fetch over the types `npm run client:generate`
 * writes from the OpenAPI document (schema.d.ts). Paths, parameters, bodies and answers are
 * checked by the compiler; a refusal (any answer that is not 2xx) throws a ProblemError, so an
 * answer a call resolves with is always a success.
 *
 *   const client = createQuestlineClient({ baseUrl: 'http://127.0.0.1:8080', token })
 *   const { data: avatar } = await client.GET('/api/v1/avatars/{id}', { params: { path: { id } } })
 */
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch'
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers'
import type { components, paths } from './schema.js'

export type { components, operations, paths } from './schema.js'

/** RFC 9457 problem details, as the API answers every refusal. */
export type Problem = components['schemas']['Problem']
/** One thing wrong in a request: `path` names the request part and field (`body/habits/0/title`). */
export type FieldProblem = NonNullable<Problem['errors']>[number]

/** A refused call: the answer's problem details (`type` like `/problems/insufficient-funds`). */
export class ProblemError extends Error {
  readonly status: number
  readonly type: string
  readonly title: string
  /** The problem's own sentence, when it has one. */
  readonly detail: string | undefined
  /** What in the request is wrong, for a 400 that names fields; otherwise empty. */
  readonly errors: FieldProblem[]

  constructor(status: number, problem: Partial<Problem>) {
    super(problem.detail || problem.title || `HTTP ${status}`)
    this.name = 'ProblemError'
    this.status = status
    this.type = problem.type ?? 'about:blank'
    this.title = problem.title ?? `HTTP ${status}`
    this.detail = problem.detail || undefined
    this.errors = problem.errors ?? []
  }

  /** The problem details of a refused answer; one that is not problem+json (a proxy's page) gets its status only. */
  static async of(response: Response): Promise<ProblemError> {
    const isJson = /json/.test(response.headers.get('content-type') ?? '')
    const body: unknown = isJson ? await response.json().catch(() => undefined) : undefined
    return new ProblemError(response.status, body && typeof body === 'object' ? (body as Partial<Problem>) : {})
  }
}

export interface QuestlineClientOptions {
  /** Where the API answers, e.g. `http://127.0.0.1:8080`; `''` in a page served by the platform. */
  baseUrl: string
  /** The access token (`POST /auth/login` answers it), sent as a bearer token. */
  token?: string
  /** Or asked for before each call (a token that gets refreshed); none: the call goes without. */
  getToken?: () => string | null | undefined | Promise<string | null | undefined>
  /** Sends the requests: `globalThis.fetch` by default. */
  fetch?: (request: Request) => Promise<Response>
}

// openapi-fetch's call signature, with the answer narrowed to its success: a refusal throws.
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }]
type Call<M extends HttpMethod> = <P extends PathsWithMethod<paths, M>, I extends MaybeOptionalInit<paths[P], M>>(
  url: P, ...init: InitParam<I>
) => Promise<paths[P][M] extends infer Operation extends Record<string | number, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- openapi-fetch's own bound
  ? Extract<FetchResponse<Operation, I, 'application/json'>, { error?: never }>
  : never>

/** The openapi-fetch client of the API, whose calls resolve only with successes. */
export type QuestlineClient = Omit<Client<paths, 'application/json'>, 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH'> & {
  GET: Call<'get'>
  PUT: Call<'put'>
  POST: Call<'post'>
  DELETE: Call<'delete'>
  PATCH: Call<'patch'>
}

export function createQuestlineClient(options: QuestlineClientOptions): QuestlineClient {
  const client = createClient<paths, 'application/json'>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) })
  client.use(bearerToken(options), problemsThrown)
  return client as QuestlineClient
}

function bearerToken({ token, getToken }: QuestlineClientOptions): Middleware {
  return {
    async onRequest({ request }) {
      const current = token ?? (await getToken?.())
      if (current) request.headers.set('authorization', `Bearer ${current}`)
      return request
    },
  }
}

const problemsThrown: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await ProblemError.of(response)
    return undefined
  },
}
