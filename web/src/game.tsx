/**
 * What every screen shares: the signed-in avatar (re-read after anything that changes it), and
 * the announcements of what just happened (experience gained, level-up, a new spell, a death).
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react'
import { getAvatar } from './api/game'
import type { Avatar } from './api/types'
import { sleep } from './ui/hooks'

export interface Announcement {
  id: number
  kind: 'reward' | 'levelup' | 'death' | 'info' | 'error'
  text: string
}

interface Game {
  avatarId: string
  avatar: Avatar | undefined
  /** How many times the avatar has been read: a screen can wait for a reading newer than its opening. */
  avatarReads: number
  avatarError: Error | undefined
  reloadAvatar: () => Promise<Avatar | undefined>
  /** Re-reads the avatar until rewards that arrive by events have landed, then announces them. */
  awaitRewards: (before: Avatar | undefined, what: string) => Promise<Change | undefined>
  announce: (kind: Announcement['kind'], text: string) => void
  announcements: Announcement[]
  dismiss: (id: number) => void
}

const GameContext = createContext<Game | null>(null)

export function useGame(): Game {
  const g = useContext(GameContext)
  if (!g) throw new Error('useGame outside GameProvider')
  return g
}

export interface Change {
  experience: number
  money: number
  levelsGained: number
  newSpells: string[]
  died: boolean
  healthLost: number
}

/**
 * What changed between two readings of the avatar. Experience is held per level, so a level-up
 * adds what was missing to leave the old level (exact for one level; more levels are rare).
 */
export function changeBetween(a: Avatar, b: Avatar): Change {
  const levelsGained = b.level.levelNumber - a.level.levelNumber
  const experience = levelsGained > 0
    ? a.level.experienceRequired - a.level.currentExperience + b.level.currentExperience
    : b.level.currentExperience - a.level.currentExperience
  const known = new Set(a.spells.map((s) => s.name))
  // A death keeps the level, empties the level's experience, takes a tenth of the money, refills health.
  const died = levelsGained === 0 && b.level.currentExperience < a.level.currentExperience && b.money.amount < a.money.amount
  return {
    experience,
    money: b.money.amount - a.money.amount,
    levelsGained,
    newSpells: b.spells.filter((s) => !known.has(s.name)).map((s) => s.name),
    died,
    healthLost: Math.max(0, a.health.current - b.health.current),
  }
}

/** Rewards (and a death) show in level, experience and money; damage alone does not end the wait. */
const same = (a: Avatar, b: Avatar) =>
  a.level.levelNumber === b.level.levelNumber && a.level.currentExperience === b.level.currentExperience &&
  a.money.amount === b.money.amount

export const DEATH_EXPLAINED = 'Your health reached 0. You keep your level, but lost the experience of this level and a tenth of your money; health and mana were refilled.'

export function describe(c: Change, what: string, levelNow: number): { kind: Announcement['kind']; text: string }[] {
  const out: { kind: Announcement['kind']; text: string }[] = []
  if (c.died) out.push({ kind: 'death', text: `You died. ${DEATH_EXPLAINED}` })
  if (c.levelsGained > 0) out.push({ kind: 'levelup', text: `Level up! You are now level ${levelNow}: more health, mana, gold and a stat point.` })
  for (const s of c.newSpells) out.push({ kind: 'levelup', text: `New spell learned: ${s}!` })
  if (!c.died && (c.experience > 0 || c.money > 0)) {
    out.push({ kind: 'reward', text: `${what}: +${c.experience} XP${c.money > 0 ? `, +${c.money} gold` : ''}` })
  } else if (!c.died && c.healthLost > 0) {
    out.push({ kind: 'error', text: `${what}: −${c.healthLost} health` })
  }
  return out
}

let nextId = 1

const LAST_SEEN = (id: string) => `questline.lastSeen.${id}`

/** The avatar as this device last read it (to tell what happened while the player was away). */
export function lastSeen(avatarId: string): Avatar | undefined {
  try {
    const raw = localStorage.getItem(LAST_SEEN(avatarId))
    const a = raw ? (JSON.parse(raw) as Avatar) : undefined
    return a?.id === avatarId && a.level ? a : undefined
  } catch {
    return undefined // no storage, or a corrupt entry: nothing to compare with
  }
}

function remember(a: Avatar): void {
  try {
    localStorage.setItem(LAST_SEEN(a.id), JSON.stringify(a))
  } catch {
    // No storage: the next visit has nothing to compare with.
  }
}

export function GameProvider({ avatarId, children }: { avatarId: string; children: ReactNode }) {
  const [avatar, setAvatar] = useState<Avatar>()
  const [avatarReads, setAvatarReads] = useState(0)
  const [avatarError, setAvatarError] = useState<Error>()
  const [announcements, setAnnouncements] = useState<Announcement[]>([])
  const latest = useRef<Avatar | undefined>(undefined)

  const reloadAvatar = useCallback(async () => {
    try {
      const a = await getAvatar(avatarId)
      latest.current = a
      remember(a)
      setAvatar(a)
      setAvatarReads((n) => n + 1)
      setAvatarError(undefined)
      return a
    } catch (e) {
      setAvatarError(e as Error)
      return undefined
    }
  }, [avatarId])

  const dismiss = useCallback((id: number) => setAnnouncements((l) => l.filter((a) => a.id !== id)), [])
  const announce = useCallback((kind: Announcement['kind'], text: string) => {
    const id = nextId++
    // At most three at once; the news that matters (level-up, death) stays until dismissed.
    setAnnouncements((l) => [...l.slice(-2), { id, kind, text }])
    if (kind !== 'death' && kind !== 'levelup') setTimeout(() => dismiss(id), kind === 'info' ? 4000 : 7000)
  }, [dismiss])

  const awaitRewards = useCallback(async (before: Avatar | undefined, what: string) => {
    // Rewards are applied by events a moment after the answer: read again for up to ~4 s.
    let after: Avatar | undefined
    for (let i = 0; i < 16; i++) {
      await sleep(i < 4 ? 150 : 300)
      after = await reloadAvatar()
      if (!before || !after || !same(before, after)) break
    }
    if (!before || !after) return undefined
    const c = changeBetween(before, after)
    for (const a of describe(c, what, after.level.levelNumber)) announce(a.kind, a.text)
    return c
  }, [reloadAvatar, announce])

  const value = useMemo<Game>(() => ({ avatarId, avatar, avatarReads, avatarError, reloadAvatar, awaitRewards, announce, announcements, dismiss }),
    [avatarId, avatar, avatarReads, avatarError, reloadAvatar, awaitRewards, announce, announcements, dismiss])
  return <GameContext.Provider value={value}>{children}</GameContext.Provider>
}
