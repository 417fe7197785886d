/**
 * The guild's chat on the Guild screen (DESIGN §9.5): newest at the bottom, kept live by the
 * stream (GuildMessagePosted, GuildMessageDeleted), older pages on demand, a message posted with
 * Enter or the button (Shift+Enter for a new line), and delete for its author and for officers
 * and the leader. A deleted message shows as "message deleted".
 */
import { useEffect, useState, type FormEvent, type KeyboardEvent } from 'react'
import { CHAT_TEXT_MAX, deleteMessage, messages, postMessage, type ChatMessage } from '../api/chat'
import type { Guild } from '../api/types'
import { useGame } from '../game'
import { useLiveEvent, useOnLive } from '../live'
import { Action, Empty, ErrorNotice, Section, messageOf } from '../ui/parts'

interface Shown {
  /** Newest first, as the pages come. */
  items: ChatMessage[]
  next: string | null
}

/** A fresh first page over what is shown: new ones on top, tombstones updated, older pages kept. */
function withFirstPage(shown: Shown | undefined, first: Shown): Shown {
  const fresh = new Set(first.items.map((m) => m.id))
  if (!shown || !shown.items.some((m) => fresh.has(m.id))) return first
  const older = shown.items.filter((m) => !fresh.has(m.id))
  return { items: [...first.items, ...older], next: older.length > 0 ? shown.next : first.next }
}

const time = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })

export function GuildChat({ guild: g }: { guild: Guild }) {
  const game = useGame()
  const [shown, setShown] = useState<Shown>()
  const [error, setError] = useState<unknown>()
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const me = g.members.find((m) => m.avatarId === game.avatarId)
  const moderates = me?.role === 'LEADER' || me?.role === 'OFFICER'

  const refresh = async () => {
    try {
      const first = await messages(g.id)
      setShown((s) => withFirstPage(s, first))
      setError(undefined)
    } catch (e) {
      setError(e)
    }
  }
  useEffect(() => void refresh(), [g.id])
  useOnLive(() => void refresh())
  useLiveEvent('resync', () => void refresh())
  useLiveEvent('GuildMessagePosted', (e) => {
    if (e.payload.guildId !== g.id) return
    const { messageId: id, guildId, author, text: body, sentAt } = e.payload
    setShown((s) => s && (s.items.some((m) => m.id === id) ? s : { ...s, items: [{ id, guildId, author, text: body, sentAt }, ...s.items] }))
  })
  useLiveEvent('GuildMessageDeleted', (e) => {
    if (e.payload.guildId !== g.id) return
    const { messageId, deletedBy, deletedAt } = e.payload
    setShown((s) => s && { ...s, items: s.items.map((m) => (m.id === messageId ? { ...m, text: null, deletedBy, deletedAt } : m)) })
  })

  const older = async () => {
    if (!shown?.next) return
    try {
      const page = await messages(g.id, shown.next)
      setShown((s) => s && { items: [...s.items, ...page.items.filter((m) => !s.items.some((x) => x.id === m.id))], next: page.next })
    } catch (e) {
      game.announce('error', messageOf(e))
    }
  }

  const send = async (e?: FormEvent) => {
    e?.preventDefault()
    if (!text.trim() || sending) return
    setSending(true)
    try {
      const posted = await postMessage(g.id, text)
      setText('')
      setShown((s) => s && (s.items.some((m) => m.id === posted.id) ? s : { ...s, items: [posted, ...s.items] }))
    } catch (err) {
      game.announce('error', messageOf(err))
    } finally {
      setSending(false)
    }
  }
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey) void send(e)
  }

  const remove = async (m: ChatMessage) => {
    try {
      await deleteMessage(g.id, m.id)
      setShown((s) => s && { ...s, items: s.items.map((x) => (x.id === m.id ? { ...x, text: null } : x)) })
    } catch (err) {
      game.announce('error', messageOf(err))
    }
  }

  const oldestFirst = [...(shown?.items ?? [])].reverse()
  return (
    <Section title="Guild chat">
      {error !== undefined && <ErrorNotice error={error} />}
      {shown?.next && <Action className="small ghost" onAction={older}>Older messages</Action>}
      {shown && shown.items.length === 0 && <Empty>No messages yet. Say hello — write @name to mention a member.</Empty>}
      <ol className="chat-log" aria-label="Guild chat messages" aria-live="polite">
        {oldestFirst.map((m) => (
          <li key={m.id} className={`chat-message${m.author.avatarId === game.avatarId ? ' mine' : ''}`}>
            <span className="chat-meta"><strong>{m.author.name}</strong> <time dateTime={m.sentAt}>{time(m.sentAt)}</time></span>
            {m.text === null
              ? <em className="chat-deleted">message deleted</em>
              : <span className="chat-text">{m.text}</span>}
            {m.text !== null && (m.author.avatarId === game.avatarId || moderates) && (
              <Action className="small ghost" onAction={() => remove(m)} aria-label={`Delete message from ${m.author.name} at ${time(m.sentAt)}`}>Delete</Action>
            )}
          </li>
        ))}
      </ol>
      <form className="chat-form row" onSubmit={send}>
        <textarea aria-label="Chat message" rows={2} maxLength={CHAT_TEXT_MAX} value={text} placeholder="Write to your guild (Enter sends)"
          onChange={(e) => setText(e.target.value)} onKeyDown={onKey} />
        <button type="submit" disabled={sending || !text.trim()}>Send</button>
      </form>
    </Section>
  )
}
