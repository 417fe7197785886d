import { existsSync } from 'node:fs'
import path from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Paths the platform answers itself: an unknown one is a problem+json 404, never the app's page. */
const PLATFORM_PATHS = /^\/(api|auth|docs|openapi\.json|healthz|readyz|metrics)(\/|$)/

/** Hashed build output (web/dist/assets) may be cached for good; anything else (index.html) is revalidated. */
const isHashed = (root: string, file: string) => path.relative(root, file).split(path.sep)[0] === 'assets'

/** Answers an unmatched request with the app's page when it is one, else returns false. */
export type PageFallback = (req: FastifyRequest, reply: FastifyReply) => boolean

interface WebApp {
  /** The single-page app's routes (`/habits`, `/guild`, …) are client-side: they all get index.html. */
  fallback: PageFallback
}

/**
 * Serves the built player web app (`web/dist`) at `/`. The files are listed once at start-up
 * (no wildcard route), so the route table and its 405 answers stay exact. Answers undefined, and
 * serves nothing, when the app has not been built.
 */
export async function serveWebApp(app: FastifyInstance, root: string): Promise<WebApp | undefined> {
  if (!existsSync(path.join(root, 'index.html'))) return undefined
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    // A list: with preCompressed, @fastify/static finds a directory's compressed index only in an array (a string finds none: 404).
    index: ['index.html'],
    cacheControl: false,
    // The build writes a .gz beside each text file; a client that accepts gzip gets it.
    preCompressed: true,
    setHeaders: (reply, file) => {
      reply.header('cache-control', isHashed(root, file) ? 'public, max-age=31536000, immutable' : 'no-cache')
      reply.header('x-content-type-options', 'nosniff')
    },
  })
  return {
    fallback: (req, reply) => {
      if (!isPageRequest(req)) return false
      void reply.sendFile('index.html')
      return true
    },
  }
}

/** A browser navigating to an app route: GET or HEAD, asking for HTML, outside the platform's paths. */
function isPageRequest(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false
  const pathname = req.url.split('?')[0] ?? req.url
  if (PLATFORM_PATHS.test(pathname)) return false
  return String(req.headers.accept ?? '').includes('text/html')
}
