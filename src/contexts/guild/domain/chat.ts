/**
 * Guild chat rules (DESIGN §9.5): what a message's text may be, whom it mentions, and when a
 * member posts too fast. Pure.
 */
import { ChatRateLimited, InvalidMessageText } from './errors.js'
import { CHAT_BURST_MAX, CHAT_BURST_WINDOW_MS, CHAT_TEXT_MAX, CHAT_TEXT_MIN } from './rules.js'

/** Someone named in a message: the avatar and its public name when it acted. */
export interface ChatPerson {
  avatarId: string
  name: string
}

export interface ChatMessage {
  id: string
  guildId: string
  author: ChatPerson
  /** Null once deleted (a tombstone). */
  text: string | null
  sentAt: Date
  deletedBy: ChatPerson | null
  deletedAt: Date | null
}

/** The text a message keeps: trimmed, CHAT_TEXT_MIN–CHAT_TEXT_MAX characters (code points). */
export function messageText(raw: string): string {
  const text = raw.trim()
  const length = [...text].length
  if (length < CHAT_TEXT_MIN || length > CHAT_TEXT_MAX) throw new InvalidMessageText(CHAT_TEXT_MIN, CHAT_TEXT_MAX)
  return text
}

/** A guild member as a mention names it: by the avatar's public name. */
export interface Mentionable {
  avatarId: string
  name: string
}

/** A name ends where a letter, digit, `_` or `-` could not continue it. */
const continuesName = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}_-]/u.test(ch)

/**
 * The members a text mentions, each once, in order of first mention, never the author. After `@`,
 * either a quoted name (`@"Sir Reg"`) or the longest member name that follows it (ignoring case)
 * and is not followed by more of a name: with members `Reg` and `Reg Smith`, `@Reg Smith hi`
 * mentions Reg Smith and `@Regina` nobody.
 */
export function mentionsIn(text: string, members: readonly Mentionable[], authorId: string): string[] {
  const byName = new Map(members.map((m) => [m.name.toLowerCase(), m.avatarId]))
  const names = [...byName.keys()].sort((a, b) => b.length - a.length)
  const found: string[] = []
  const lower = text.toLowerCase()
  for (let at = lower.indexOf('@'); at >= 0; at = lower.indexOf('@', at + 1)) {
    const id = mentionAt(lower, at + 1, byName, names)
    if (id !== undefined && id !== authorId && !found.includes(id)) found.push(id)
  }
  return found
}

function mentionAt(lower: string, start: number, byName: Map<string, string>, longestFirst: string[]): string | undefined {
  if (lower[start] === '"') {
    const end = lower.indexOf('"', start + 1)
    return end < 0 ? undefined : byName.get(lower.slice(start + 1, end))
  }
  const name = longestFirst.find((n) => lower.startsWith(n, start) && !continuesName(lower[start + n.length]))
  return name === undefined ? undefined : byName.get(name)
}

/**
 * Whether a member may post at `now`, given when their messages of the last window were sent.
 * Refused at CHAT_BURST_MAX in the window, until the oldest of them leaves it (Retry-After in
 * whole seconds, at least 1).
 */
export function requirePostAllowed(recentSentAt: readonly Date[], now: Date): void {
  const from = now.getTime() - CHAT_BURST_WINDOW_MS
  const inWindow = recentSentAt.map((d) => d.getTime()).filter((t) => t > from).sort((a, b) => a - b)
  if (inWindow.length < CHAT_BURST_MAX) return
  const leavesAt = inWindow[inWindow.length - CHAT_BURST_MAX]! + CHAT_BURST_WINDOW_MS
  throw new ChatRateLimited(Math.max(1, Math.ceil((leavesAt - now.getTime()) / 1000)))
}

