import { useEffect, useState } from 'react'
import { scheduleRefresh, whenSessionLost } from './api/client'
import { logout } from './api/game'
import { getSession, onSessionChange, setSession, type Session } from './api/session'
import { GameProvider, useGame } from './game'
import { LiveProvider, useLiveEvent, useLiveStatus } from './live'
import { OutboxProvider, OutboxRefusals } from './offline/outbox'
import { forgetKeptReads, UpdateBanner } from './offline/service-worker'
import { Link, navigate, usePath } from './router'
import { AuthScreen } from './screens/Auth'
import { BattleScreen } from './screens/Battle'
import { CharacterScreen } from './screens/Character'
import { GuildScreen } from './screens/Guild'
import { HabitsScreen } from './screens/Habits'
import { LeagueScreen } from './screens/League'
import { MarketScreen } from './screens/Market'
import { QuestsScreen } from './screens/Quests'
import { SettingsScreen } from './screens/Settings'
import { TodayScreen } from './screens/Today'
import { Icon } from './ui/icons'
import { InboxBell } from './ui/Inbox'

const SCREENS = [
  { path: '/', label: 'Today', icon: 'today', Screen: TodayScreen },
  { path: '/habits', label: 'Habits', icon: 'habits', Screen: HabitsScreen },
  { path: '/character', label: 'Hero', icon: 'hero', Screen: CharacterScreen },
  { path: '/market', label: 'Market', icon: 'market', Screen: MarketScreen },
  { path: '/guild', label: 'Guild', icon: 'guild', Screen: GuildScreen },
  { path: '/battle', label: 'Battle', icon: 'battle', Screen: BattleScreen },
  { path: '/league', label: 'League', icon: 'trophy', Screen: LeagueScreen },
  { path: '/quests', label: 'Quests', icon: 'quests', Screen: QuestsScreen },
  { path: '/settings', label: 'Settings', icon: 'settings', Screen: SettingsScreen },
] as const

export function App() {
  const [session, setCurrent] = useState<Session | null>(getSession())
  const [lost, setLost] = useState<string>()
  const path = usePath()

  useEffect(() => onSessionChange((s) => {
    setCurrent(s)
    if (!s) forgetKeptReads()
    scheduleRefresh()
  }), [])
  useEffect(() => {
    scheduleRefresh()
    whenSessionLost((reason) => setLost(reason))
  }, [])

  const onAuthPage = path === '/login' || path === '/register'
  // Signed out: every page is the sign-in page; signed in, the sign-in pages lead to today.
  useEffect(() => {
    if (!session && !onAuthPage) navigate('/login', true)
    if (session && onAuthPage) navigate('/', true)
  }, [session, onAuthPage])

  if (!session) {
    return (
      <>
        <UpdateBanner />
        <AuthScreen key={path} mode={path === '/register' ? 'register' : 'login'} notice={lost} />
      </>
    )
  }
  return (
    <LiveProvider key={session.userId} avatarId={session.userId}>
      <GameProvider avatarId={session.userId}>
        <OutboxProvider avatarId={session.userId}>
          <UpdateBanner />
          <Shell path={path} session={session} />
        </OutboxProvider>
      </GameProvider>
    </LiveProvider>
  )
}

function Shell({ path, session }: { path: string; session: Session }) {
  const screen = SCREENS.find((s) => s.path === path)
  const { avatar, reloadAvatar, announce } = useGame()

  // The stream could not replay what was missed: each screen reads its data again (useReloadOn).
  useLiveEvent('resync', () => announce('info', 'Reconnected — refreshed.'))

  // Every screen opens on a fresh reading of the hero (things change elsewhere: events, other devices).
  useEffect(() => {
    void reloadAvatar()
  }, [path, reloadAvatar])

  useEffect(() => {
    document.title = screen ? `${screen.label} · Questline` : 'Questline'
    document.getElementById('main')?.focus({ preventScroll: true })
  }, [screen])

  const signOut = async () => {
    try {
      await logout(session.refreshToken)
    } finally {
      setSession(null)
      navigate('/login', true)
    }
  }

  return (
    <div className="shell">
      <a className="skip" href="#main">Skip to content</a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="Questline, today"><Icon name="battle" /> Questline</Link>
        <span className="topbar-end">
          {avatar && (
            <span className="topbar-avatar" aria-label={`${avatar.name}, level ${avatar.level.levelNumber}, ${avatar.money.amount} gold`}>
              <span className="ellipsis">{avatar.name}</span>
              <span className="pill">Lv {avatar.level.levelNumber}</span>
              <span className="pill gold"><Icon name="coin" size={14} /> {avatar.money.amount}</span>
            </span>
          )}
          <LiveIndicator />
          <InboxBell />
          <button type="button" className="ghost small" onClick={signOut}>Sign out</button>
        </span>
      </header>
      <nav className="tabs" aria-label="Screens">
        {SCREENS.map((s) => (
          <Link key={s.path} to={s.path} className="tab" aria-current={s.path === path ? 'page' : undefined}>
            <Icon name={s.icon} size={22} className="tab-icon" />
            <span className="tab-label">{s.label}</span>
          </Link>
        ))}
      </nav>
      <main id="main" tabIndex={-1}>
        <OutboxRefusals />
        {screen ? <screen.Screen /> : <NotFound />}
      </main>
      <Announcements />
    </div>
  )
}

/** Shown while the stream is down for more than a moment (a reconnect after the token's expiry is not news). */
const QUIET_MS = 1_500

function LiveIndicator() {
  const status = useLiveStatus()
  const down = status === 'reconnecting' || status === 'offline'
  const [shown, setShown] = useState(false)
  useEffect(() => {
    if (!down) return setShown(false)
    const t = setTimeout(() => setShown(true), QUIET_MS)
    return () => clearTimeout(t)
  }, [down])
  return (
    <span role="status" className="live-status" data-live={status}>
      {shown && (status === 'offline'
        ? <span className="pill warn-pill" title="Changes show when the connection is back."><Icon name="wifiOff" size={14} /> Offline — reconnecting…</span>
        : <span className="pill"><Icon name="wifiOff" size={14} /> Reconnecting…</span>)}
    </span>
  )
}

function NotFound() {
  return (
    <div className="card">
      <h1>Nothing here</h1>
      <p>This page does not exist. <Link to="/">Back to today</Link></p>
    </div>
  )
}

function Announcements() {
  const { announcements, dismiss } = useGame()
  return (
    <div className="toasts" aria-live="polite" aria-atomic="false">
      {announcements.map((a) => (
        <div key={a.id} className={`toast toast-${a.kind}`} role={a.kind === 'error' || a.kind === 'death' ? 'alert' : 'status'}>
          <Icon className="toast-icon" name={a.kind === 'levelup' ? 'trophy' : a.kind === 'death' ? 'skull' : a.kind === 'reward' ? 'spark' : a.kind === 'error' ? 'warn' : 'info'} />
          <span className="toast-text">{a.text}</span>
          <button type="button" className="ghost small" onClick={() => dismiss(a.id)} aria-label="Dismiss">✕</button>
        </div>
      ))}
    </div>
  )
}
