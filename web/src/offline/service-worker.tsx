/// <reference types="vite/client" />
/**
 * The page's side of the service worker (offline/sw.ts): registers it in a production build, and
 * when a new version has installed and waits, shows a banner whose button lets it take over and
 * reloads the page with it.
 */
import { useSyncExternalStore } from 'react'

/** How often an open app asks whether a new version was deployed. */
const UPDATE_CHECK_MS = 60 * 60_000
/** The API reads the worker keeps for offline use (offline/sw.ts). */
const DATA_CACHE = 'questline-data'

let waiting: ServiceWorker | null = null
const listeners = new Set<() => void>()
let activating = false

function setWaiting(w: ServiceWorker | null): void {
  waiting = w
  for (const l of listeners) l()
}

/** A worker that installed while another controls the page is a new version. */
function watch(w: ServiceWorker): void {
  const check = () => {
    if (w.state === 'installed' && navigator.serviceWorker.controller) setWaiting(w)
  }
  check()
  w.addEventListener('statechange', check)
}

export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    // The first worker claims the page too; only a version the player asked for reloads it.
    if (activating) window.location.reload()
  })
  navigator.serviceWorker.register('/sw.js').then((reg) => {
    if (reg.waiting) watch(reg.waiting)
    if (reg.installing) watch(reg.installing)
    reg.addEventListener('updatefound', () => {
      if (reg.installing) watch(reg.installing)
    })
    setInterval(() => void reg.update().catch(() => undefined), UPDATE_CHECK_MS)
  }, (e: unknown) => console.warn('The service worker was not registered:', e))
}

/** Lets the waiting version take over; the page reloads when it has (controllerchange). */
function activateUpdate(): void {
  if (!waiting) return
  activating = true
  waiting.postMessage('skip-waiting')
}

/** Forgets the API answers kept for offline use (on sign-out: they are the player's own). */
export function forgetKeptReads(): void {
  if ('caches' in window) void caches.delete(DATA_CACHE).catch(() => undefined)
}

const subscribe = (l: () => void) => {
  listeners.add(l)
  return () => listeners.delete(l)
}

export function UpdateBanner() {
  const w = useSyncExternalStore(subscribe, () => waiting)
  if (!w) return null
  return (
    <div className="update-banner" role="status">
      <span>A new version is ready —</span>
      <button type="button" className="small" onClick={activateUpdate}>Reload</button>
    </div>
  )
}
