/**
 * The service worker (built to /sw.js by web/vite.config.ts, which fills in PRECACHE and VERSION).
 * It keeps the app shell (index.html and the hashed assets) so the app opens offline, answers the
 * app's own paths with index.html, and keeps the last answer of each API read for when the network
 * is gone (network first). Writes, the live stream, the platform's own pages (/docs, /auth, …) and
 * other origins pass by untouched.
 */
declare const PRECACHE: string[]
declare const VERSION: string

/** The parts of the worker's scope used here (the DOM library, which the app is typed with, lacks them). */
interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void
}
interface FetchEvent extends ExtendableEvent {
  request: Request
  respondWith(r: Promise<Response>): void
}
interface WorkerScope {
  addEventListener(type: 'install' | 'activate', f: (e: ExtendableEvent) => void): void
  addEventListener(type: 'fetch', f: (e: FetchEvent) => void): void
  addEventListener(type: 'message', f: (e: MessageEvent) => void): void
  skipWaiting(): Promise<void>
  clients: { claim(): Promise<void> }
  location: Location
}
const worker = self as unknown as WorkerScope

const SHELL_CACHE = `questline-shell-${VERSION}`
/** Shared with the page, which empties it on sign-out (offline/data-cache.ts). */
const DATA_CACHE = 'questline-data'
/** Answered by the platform, never by the app's page (as src/platform/http/web-app.ts draws the line). */
const PLATFORM_PATHS = /^\/(api|auth|docs|openapi\.json|healthz|readyz|metrics|calendar|internal)(\/|$)/

worker.addEventListener('install', (e) => {
  // No skipWaiting here: a new version waits until the player chooses to reload (the update banner).
  e.waitUntil(caches.open(SHELL_CACHE).then((c) => c.addAll(PRECACHE)))
})

worker.addEventListener('activate', (e) => {
  e.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('questline-shell-') && name !== SHELL_CACHE) await caches.delete(name)
    }
    await worker.clients.claim()
  })())
})

worker.addEventListener('message', (e) => {
  if (e.data === 'skip-waiting') void worker.skipWaiting()
})

worker.addEventListener('fetch', (e) => {
  const request = e.request
  const url = new URL(request.url)
  if (request.method !== 'GET' || url.origin !== worker.location.origin) return
  if (request.mode === 'navigate') {
    if (!PLATFORM_PATHS.test(url.pathname)) e.respondWith(appPage(request))
    return
  }
  if (url.pathname.startsWith('/api/')) {
    if (isCachedRead(request, url)) e.respondWith(networkFirst(request))
    return
  }
  e.respondWith(shellFirst(request))
})

/** The shell's index.html (the app routes itself), or the network when it is not kept yet. */
async function appPage(request: Request): Promise<Response> {
  return (await caches.match('/index.html', { cacheName: SHELL_CACHE })) ?? fetch(request)
}

/** A kept file of the shell, else the network. */
async function shellFirst(request: Request): Promise<Response> {
  return (await caches.match(request, { cacheName: SHELL_CACHE })) ?? fetch(request)
}

/** A JSON read of the player's data: not the live stream, nor a download. */
function isCachedRead(request: Request, url: URL): boolean {
  return !url.pathname.endsWith('/stream') && !(request.headers.get('accept') ?? '').includes('text/event-stream')
}

/** The network's answer (kept when it is a good JSON one); without a network, the last kept answer. */
async function networkFirst(request: Request): Promise<Response> {
  try {
    const response = await fetch(request)
    if (response.status === 200 && (response.headers.get('content-type') ?? '').includes('json')) {
      const copy = response.clone()
      void caches.open(DATA_CACHE).then((c) => c.put(request, copy)).catch(() => undefined)
    }
    return response
  } catch (e) {
    const kept = await caches.match(request, { cacheName: DATA_CACHE })
    if (kept) return kept
    throw e
  }
}
