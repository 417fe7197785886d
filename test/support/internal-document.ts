import type { TestApp } from './app.js'

const CONTEXTS = ['avatar', 'tracking', 'guild', 'quest', 'marketplace', 'live']

/**
 * The internal document (`/internal/openapi.json`) of the whole platform: in one process, its
 * own; split, each context process documents its own routes (a gateway serves none), merged here.
 */
export async function internalDocument<D extends { paths: Record<string, unknown> }>(app: TestApp): Promise<D> {
  const docs = await Promise.all(CONTEXTS.map(async (context) => (await app.injectAt(context, { url: '/internal/openapi.json' })).json() as D))
  return { ...docs[0]!, paths: Object.assign({}, ...docs.map((d) => d.paths)) as D['paths'] }
}
