/**
 * The signed-in session: access token, refresh token and when the access token expires. Kept in
 * localStorage so a reload (or another tab) stays signed in; other tabs hear of every change.
 */
import { now } from '../clock'
import type { paths } from '@questline/client'

export interface Session {
  token: string
  refreshToken: string
  userId: string
  /** Epoch milliseconds at which the access token expires. */
  expiresAt: number
}

/** What /auth/register, /auth/login and /auth/refresh answer. */
export type SessionAnswer = paths['/auth/login']['post']['responses'][200]['content']['application/json']

const KEY = 'questline.session'
type Listener = (s: Session | null) => void
const listeners = new Set<Listener>()

let current: Session | null = read()

function read(): Session | null {
  try {
    const raw = localStorage.getItem(KEY)
    if (!raw) return null
    const s = JSON.parse(raw) as Partial<Session>
    if (typeof s.token !== 'string' || typeof s.refreshToken !== 'string' || typeof s.userId !== 'string' || typeof s.expiresAt !== 'number') return null
    return s as Session
  } catch {
    return null // storage unavailable or corrupt: signed out
  }
}

export const getSession = (): Session | null => current

/** Re-reads storage: another tab may have refreshed or signed out meanwhile. */
export function reloadSession(): Session | null {
  current = read()
  return current
}

export function setSession(answer: SessionAnswer | null): Session | null {
  current = answer && {
    token: answer.token,
    refreshToken: answer.refreshToken,
    userId: answer.userId,
    expiresAt: now() + answer.expiresIn * 1000,
  }
  try {
    if (current) localStorage.setItem(KEY, JSON.stringify(current))
    else localStorage.removeItem(KEY)
  } catch {
    // Private mode without storage: the session lives as long as the page.
  }
  for (const l of listeners) l(current)
  return current
}

export function onSessionChange(l: Listener): () => void {
  listeners.add(l)
  return () => listeners.delete(l)
}

// Another tab signed in, refreshed or signed out.
window.addEventListener('storage', (e) => {
  if (e.key !== KEY) return
  current = read()
  for (const l of listeners) l(current)
})
