/**
 * The bell in the header: the count of unread notifications, kept current by the stream
 * (NotificationCreated), and the inbox it opens (newest first, mark one or all read, older pages).
 * Unread mentions (MENTION) show in a badge of their own. Reminders and invites also become a browser notification and an announcement as they arrive.
 */
import { useEffect, useId, useRef, useState } from 'react'
import { inbox, markAllRead, markRead, unreadMentions, type InboxPage, type Notification } from '../api/live'
import { askOnce, askPermission, notify, permission, type Permission } from '../browser-notifications'
import { now } from '../clock'
import { useGame } from '../game'
import { useLiveEvent, useOnLive } from '../live'
import { Link } from '../router'
import { Action, Empty, ErrorNotice, Loading } from './parts'
import { useFocusTrap } from './focus-trap'
import { Icon } from './icons'

/** Notifications that are worth a browser notification while a tab is open. */
const PUSHED = new Set<Notification['type']>(['REMINDER', 'INVITE'])

/** The screen a notification is about. */
const SCREEN: Partial<Record<Notification['type'], string>> = {
  INVITE: '/guild', MENTION: '/guild', BATTLE_WON: '/battle', BATTLE_LOST: '/battle', LEVEL_UP: '/character', DIED: '/character',
  QUEST_COMPLETED: '/quests', QUEST_EXPIRED: '/quests', HABIT_MISSED: '/', STREAK_FROZEN: '/', REMINDER: '/',
}

interface Shown {
  items: Notification[]
  next: string | null
  unreadCount: number
}

/**
 * A fresh first page laid over what is shown: new ones on top, read states updated, older pages
 * kept. The fresh page alone when it is the whole inbox, or when none of the shown ones is on it
 * (more arrived than a page holds: the two do not join up).
 */
function withFirstPage(shown: Shown | undefined, first: InboxPage): Shown {
  const fresh = new Set(first.items.map((n) => n.id))
  if (!shown || !first.next || !shown.items.some((n) => fresh.has(n.id))) return first
  const older = shown.items.filter((n) => !fresh.has(n.id))
  return { items: [...first.items, ...older], next: older.length > 0 ? shown.next : first.next, unreadCount: first.unreadCount }
}

export function InboxBell() {
  const { avatarId, announce } = useGame()
  const [shown, setShown] = useState<Shown>()
  const [error, setError] = useState<unknown>()
  const [open, setOpen] = useState(false)
  const [canAsk, setCanAsk] = useState<Permission>(permission)
  const panelId = useId()
  const bell = useRef<HTMLButtonElement>(null)
  const panel = useRef<HTMLDivElement>(null)

  const [mentions, setMentions] = useState(0)

  const refresh = async (): Promise<InboxPage | undefined> => {
    try {
      const [first, unreadMentioned] = await Promise.all([inbox(avatarId), unreadMentions(avatarId)])
      setShown((s) => withFirstPage(s, first))
      setMentions(unreadMentioned)
      setError(undefined)
      return first
    } catch (e) {
      setError(e)
      return undefined
    }
  }

  useEffect(() => void refresh(), [avatarId])

  useLiveEvent('NotificationCreated', async (e) => {
    if (e.payload.avatarId !== avatarId) return
    // The count shows at once; the reading brings the body and the exact count.
    setShown((s) => s && { ...s, unreadCount: s.unreadCount + 1 })
    const first = await refresh()
    const n = first?.items.find((i) => i.id === e.payload.notificationId)
    if (n && PUSHED.has(n.type) && !n.readAt) {
      notify({ tag: n.id, title: n.title, body: n.body })
      announce('info', `${n.title}: ${n.body}`)
    }
  })
  useLiveEvent('resync', () => void refresh())
  useOnLive(() => void refresh())

  useFocusTrap(panel, open)
  const close = () => {
    setOpen(false)
    bell.current?.focus()
  }

  // Escape or a click outside closes the panel.
  useEffect(() => {
    if (!open) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close()
    }
    const onPointer = (e: PointerEvent) => {
      const t = e.target as Node
      if (!panel.current?.contains(t) && !bell.current?.contains(t)) setOpen(false)
    }
    document.addEventListener('keydown', onKey)
    document.addEventListener('pointerdown', onPointer)
    return () => {
      document.removeEventListener('keydown', onKey)
      document.removeEventListener('pointerdown', onPointer)
    }
  }, [open])

  const toggle = () => {
    const opening = !open
    setOpen(opening)
    if (!opening) return
    void refresh()
    // The first opening is the gesture the browser wants before it asks the player.
    if (permission() === 'default') void askOnce().then(setCanAsk)
  }

  const readOne = async (n: Notification) => {
    if (n.readAt) return
    try {
      await markRead(avatarId, n.id)
    } catch (e) {
      setError(e)
      return
    }
    const at = new Date(now()).toISOString()
    if (n.type === 'MENTION') setMentions((m) => Math.max(0, m - 1))
    setShown((s) => s && {
      ...s,
      items: s.items.map((i) => (i.id === n.id ? { ...i, readAt: at } : i)),
      unreadCount: Math.max(0, s.unreadCount - 1),
    })
  }

  const readAll = async () => {
    try {
      await markAllRead(avatarId)
    } catch (e) {
      setError(e)
      return
    }
    const at = new Date(now()).toISOString()
    setMentions(0)
    setShown((s) => s && { ...s, items: s.items.map((i) => (i.readAt ? i : { ...i, readAt: at })), unreadCount: 0 })
  }

  const older = async () => {
    if (!shown?.next) return
    try {
      const page = await inbox(avatarId, { cursor: shown.next })
      setShown((s) => s && {
        items: [...s.items, ...page.items.filter((n) => !s.items.some((i) => i.id === n.id))],
        next: page.next,
        unreadCount: page.unreadCount,
      })
    } catch (e) {
      setError(e)
    }
  }

  const unread = shown?.unreadCount ?? 0
  return (
    <div className="inbox">
      <button ref={bell} type="button" className="ghost small bell" onClick={toggle} aria-expanded={open} aria-controls={panelId}
        aria-label={`Inbox, ${unread} unread${mentions > 0 ? `, ${mentions} mention${mentions === 1 ? '' : 's'}` : ''}`}>
        <Icon name="bell" />
        {unread > 0 && <span className="badge num" data-testid="unread-count">{unread > 99 ? '99+' : unread}</span>}
        {mentions > 0 && <span className="badge mention num" data-testid="mention-count" aria-hidden="true">@{mentions > 99 ? '99+' : mentions}</span>}
      </button>
      {open && (
        <div ref={panel} id={panelId} className="inbox-panel" role="dialog" aria-labelledby={`${panelId}-title`}>
          <div className="card-head">
            <h2 id={`${panelId}-title`}>Inbox</h2>
            <span className="row">
              <Action className="small" onAction={readAll} disabled={unread === 0}>Mark all read</Action>
              <button type="button" className="ghost small" onClick={close} aria-label="Close inbox">✕</button>
            </span>
          </div>
          <ErrorNotice error={error} />
          {canAsk === 'default' && (
            <p className="row muted small-text">
              Get a browser notification for reminders and invites while Questline is open?
              <Action className="small" onAction={async () => setCanAsk(await askPermission())}>Turn on</Action>
            </p>
          )}
          {!shown && !error && <Loading what="notifications" />}
          {shown?.items.length === 0 && <Empty>Nothing yet. Invites, level-ups, battle outcomes and reminders land here.</Empty>}
          <ul className="rows inbox-list" aria-label="Notifications">
            {shown?.items.map((n) => (
              <li key={n.id} className={`row-item notification${n.readAt ? '' : ' unread'}`}>
                <span className="notification-main grow">
                  <Link to={SCREEN[n.type] ?? '/'} className="notification-title wrap" onClick={() => {
                    void readOne(n)
                    setOpen(false)
                  }}>{n.title}</Link>
                  <span className="wrap">{n.body}</span>
                  <time className="muted small-text" dateTime={n.createdAt}>{new Date(n.createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}</time>
                </span>
                {!n.readAt && (
                  <Action className="small" onAction={() => readOne(n)}>Mark read<span className="visually-hidden"> {n.title}</span></Action>
                )}
              </li>
            ))}
          </ul>
          {shown?.next && <Action className="small wide" onAction={older}>Show older</Action>}
        </div>
      )}
    </div>
  )
}
