/**
 * What every screen shares: the signed-in avatar (kept current by the live stream, re-read after
 * anything the stream cannot say in full), and the announcements of what just happened
 * (experience gained, level-up, a new spell, a death).
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react'
import { getAvatar } from './api/game'
import type { LivePayloads } from './api/live'
import type { Avatar } from './api/types'
import { now } from './clock'
import { useLiveEvent, useLiveStatus, useOnLive } from './live'
import { sleep } from './ui/hooks'

interface Announcement {
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
  /** Waits until rewards that arrive by events have landed (by the stream, else reading again), then announces them. */
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

interface Change {
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

/** What a change says besides a level-up (announced once, see GameProvider). */
function describe(c: Change, what: string): { kind: Announcement['kind']; text: string }[] {
  const out: { kind: Announcement['kind']; text: string }[] = []
  if (c.died) out.push({ kind: 'death', text: `You died. ${DEATH_EXPLAINED}` })
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

/** The avatar after an AvatarChanged event, and whether that says everything (items and spells come only with a reading). */
function withChange(a: Avatar, p: LivePayloads['AvatarChanged']): { avatar: Avatar; complete: boolean } {
  const avatar: Avatar = {
    ...a,
    level: { levelNumber: p.level, currentExperience: p.experience, experienceRequired: p.experienceRequired },
    health: { current: p.health, max: p.maxHealth },
    mana: { amount: p.mana, max: p.maxMana },
    money: { amount: p.money },
    stats: { strength: p.strength, defense: p.defense, intelligence: p.intelligence },
    streakFreezes: p.streakFreezes ?? a.streakFreezes,
  }
  const complete = p.level === a.level.levelNumber && sameItems(a.inventory.items, p.inventory) && sameItems(a.equippedItems.items, p.equipped)
  return { avatar, complete }
}

const itemKeys = (items: { type: string; name: string }[]) => items.map((i) => `${i.type}\n${i.name}`).sort().join('\n\n')
const sameItems = (a: { type: string; name: string }[], b: { type: string; name: string }[]) => a.length === b.length && itemKeys(a) === itemKeys(b)

const levelUpText = (level: number) => `Level up! You are now level ${level}: more health, mana, gold and a stat point.`

/** How long an action waits for the rewards that events bring before it reads the avatar itself. */
const REWARD_WAIT_MS = 4_000

export function GameProvider({ avatarId, children }: { avatarId: string; children: ReactNode }) {
  const [avatar, setAvatar] = useState<Avatar>()
  const [avatarReads, setAvatarReads] = useState(0)
  const [avatarError, setAvatarError] = useState<Error>()
  const [announcements, setAnnouncements] = useState<Announcement[]>([])
  const latest = useRef<Avatar | undefined>(undefined)
  /** Changes applied from the stream so far: a reading started before the latest one may be older than what is shown. */
  const streamed = useRef(0)
  /** A change the stream could not say in full (items, spells) awaits a reading. */
  const incomplete = useRef(false)
  /** Waiting for the avatar to change (see awaitRewards). */
  const waiters = useRef(new Set<() => void>())
  /** The highest level a level-up was announced for (the stream's and an action's announcement are one). */
  const announcedLevel = useRef<number | undefined>(undefined)
  const status = useLiveStatus()
  const live = useRef(status === 'live')
  live.current = status === 'live'

  /**
   * Shows `a`. A reading is remembered as what this device last saw; a change from the stream is
   * not, so that Today still explains what happened since the player last looked there.
   */
  const show = useCallback((a: Avatar, read: boolean) => {
    latest.current = a
    announcedLevel.current ??= a.level.levelNumber
    if (read) remember(a)
    setAvatar(a)
    for (const w of [...waiters.current]) w()
  }, [])

  const reloadAvatar = useCallback(async () => {
    const streamedBefore = streamed.current
    try {
      const a = await getAvatar(avatarId)
      // The stream applied a change while this was read: what it shows is at least as new.
      if (streamed.current === streamedBefore) {
        incomplete.current = false
        show(a, true)
      }
      setAvatarReads((n) => n + 1)
      setAvatarError(undefined)
      return a
    } catch (e) {
      setAvatarError(e as Error)
      return undefined
    }
  }, [avatarId, show])

  const dismiss = useCallback((id: number) => setAnnouncements((l) => l.filter((a) => a.id !== id)), [])
  const announce = useCallback((kind: Announcement['kind'], text: string) => {
    const id = nextId++
    // At most three at once; the news that matters (level-up, death) stays until dismissed.
    setAnnouncements((l) => [...l.slice(-2), { id, kind, text }])
    if (kind !== 'death' && kind !== 'levelup') setTimeout(() => dismiss(id), kind === 'info' ? 4000 : 7000)
  }, [dismiss])

  /** Announces a level-up once, whether the stream or an action's reading tells of it first. */
  const announceLevel = useCallback((level: number, spells: string[]) => {
    if (announcedLevel.current !== undefined && level <= announcedLevel.current) return
    announcedLevel.current = level
    announce('levelup', levelUpText(level))
    for (const s of spells) announce('levelup', `New spell learned: ${s}!`)
  }, [announce])

  useLiveEvent('AvatarChanged', (e) => {
    const a = latest.current
    if (e.payload.avatarId !== avatarId || !a) return
    const { avatar: next, complete } = withChange(a, e.payload)
    streamed.current++
    if (!complete) incomplete.current = true
    show(next, false)
    if (incomplete.current) void reloadAvatar()
  })
  useLiveEvent('AvatarLeveledUp', (e) => {
    if (e.payload.avatarId === avatarId) announceLevel(e.payload.level, e.payload.spellsLearned)
  })
  useLiveEvent('resync', () => void reloadAvatar())
  // What changed before the stream opened (or while it was down) is read.
  useOnLive(() => void reloadAvatar())

  /** Resolves when the avatar shown changes, or after `ms`. */
  const changeOrTimeout = (ms: number) => new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      waiters.current.delete(done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    waiters.current.add(done)
  })

  const awaitRewards = useCallback(async (before: Avatar | undefined, what: string) => {
    // Rewards are applied by events a moment after the answer: the stream brings them; without
    // it, read again for up to ~4 s.
    const deadline = now() + REWARD_WAIT_MS
    let after = latest.current
    for (let i = 0; after && before && same(before, after) && now() < deadline; i++) {
      if (live.current) {
        await changeOrTimeout(Math.max(0, deadline - now()))
        after = latest.current
      } else {
        await sleep(i < 4 ? 150 : 300)
        after = await reloadAvatar()
      }
    }
    // Nothing came by the stream (or a level changed, and with it the spells): read the avatar.
    if (before && after && (same(before, after) || after.level.levelNumber !== before.level.levelNumber)) after = (await reloadAvatar()) ?? after
    if (!before || !after) return undefined
    const c = changeBetween(before, after)
    if (c.levelsGained > 0) announceLevel(after.level.levelNumber, c.newSpells)
    for (const a of describe(c, what)) announce(a.kind, a.text)
    return c
  }, [reloadAvatar, announce, announceLevel])

  const value = useMemo<Game>(() => ({ avatarId, avatar, avatarReads, avatarError, reloadAvatar, awaitRewards, announce, announcements, dismiss }),
    [avatarId, avatar, avatarReads, avatarError, reloadAvatar, awaitRewards, announce, announcements, dismiss])
  return <GameContext.Provider value={value}>{children}</GameContext.Provider>
}
