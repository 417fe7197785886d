import { useEffect, useRef, useState } from 'react'
import { ApiError } from '../api/client'
import { attendHabit, getHabit, getSettings, habitWindows, listHabits } from '../api/game'
import type { Habit, Settings } from '../api/types'
import { changeBetween, DEATH_EXPLAINED, lastSeen, useGame } from '../game'
import { useLiveEvent, useReloadOn } from '../live'
import { useOutbox } from '../offline/outbox'
import { Link } from '../router'
import { addDays, weekdayOf } from '../../../src/platform/time/index.js'
import { formatDate, isDue, localDateTime, playerDayOf, playerToday } from '../time'
import { AvatarCard } from '../ui/AvatarCard'
import { useLoad } from '../ui/hooks'
import { Action, Empty, ErrorNotice, Loading, Notice, Section, messageOf } from '../ui/parts'
import { recurrenceLabel, restDaysLabel } from './habit-parts'
import { ReportCard } from './report-parts'
import { Icon } from '../ui/icons'

export function TodayScreen() {
  const game = useGame()
  const habits = useLoad(() => listHabits(game.avatarId), [game.avatarId])
  // The day start and a vacation: which day it is for the player, and whether anything is due.
  const settings = useLoad(() => getSettings(game.avatarId), [game.avatarId])
  const dayStartHour = settings.data?.dayStartHour ?? 0
  const sinceLastVisit = useSinceLastVisit()
  /** Habits completed here: their rewards are announced by `complete`, not again when the stream tells of them. */
  const completedHere = useRef(new Set<string>())
  const outbox = useOutbox()
  const pendingOf = (h: Habit) => outbox.pending.filter((a) => a.habitId === h.id).length

  // Completions, misses and new habits from anywhere (another device, a quest) show without a reload.
  useReloadOn(['HabitAttended', 'HabitMissed', 'HabitCreated', 'HabitDeleted'], habits.reload)
  // Queued check-ins that went up (here or in another tab) change the habits.
  const reloadHabits = habits.reload
  useEffect(() => {
    if (outbox.applied > 0) void reloadHabits()
  }, [outbox.applied, reloadHabits])
  useLiveEvent('HabitAttended', (e) => {
    if (completedHere.current.delete(e.payload.habitId) || outbox.sentHere.delete(e.payload.habitId)) return
    const h = habits.data?.find((x) => x.id === e.payload.habitId)
    const { experience, money } = e.payload.reward
    game.announce('reward', `${h?.title ?? 'A habit'} done: +${experience} XP${money > 0 ? `, +${money} gold` : ''}`)
  })

  const complete = async (h: Habit) => {
    const before = game.avatar
    const date = localDateTime(h.timeZone)
    completedHere.current.add(h.id)
    try {
      await attendHabit(h.id, date)
    } catch (e) {
      completedHere.current.delete(h.id)
      // Not refused but unanswered (offline, the network failed): kept and sent when the server is back.
      if (!(e instanceof ApiError)) {
        await outbox.enqueue(h, date)
        game.announce('info', `${h.title} is saved on this device and will count when you are back online.`)
        return
      }
      const already = e instanceof ApiError && (e.slug === 'window-already-completed' ? 'for this window' : e.slug === 'day-already-completed' ? 'today' : null)
      game.announce('error', already ? `${h.title} is already done ${already}.` : messageOf(e))
      await habits.reload()
      return
    }
    const fresh = await getHabit(h.id)
    habits.set((l) => l?.map((x) => (x.id === h.id ? fresh : x)))
    await game.awaitRewards(before, `${h.title} done`)
  }

  const dueNow = (h: Habit) => isDue(h) && !doneToday(h, dayStartHour) && pendingOf(h) === 0
  // Archived habits are out of play: never due, never completed (Habits keeps them).
  const inPlay = habits.data?.filter((h) => !h.archived) ?? []
  const due = inPlay.filter(dueNow)
  const done = inPlay.filter((h) => !dueNow(h))

  return (
    <div className="screen today">
      <h1 className="visually-hidden">Today</h1>
      {game.avatar ? <AvatarCard avatar={game.avatar} /> : game.avatarError ? <ErrorNotice error={game.avatarError} /> : <Loading what="your hero" />}
      {sinceLastVisit}
      {settings.data && <VacationNotice settings={settings.data} />}
      <Section title="Due now" actions={<Link to="/habits" className="button small">New habit</Link>}>
        {habits.error && <ErrorNotice error={habits.error} />}
        {!habits.data && !habits.error && <Loading what="habits" />}
        {habits.data && habits.data.length === 0 && <Empty>No habits yet. <Link to="/habits">Create your first habit</Link> and come back to complete it.</Empty>}
        {habits.data && habits.data.length > 0 && inPlay.length === 0 && <Empty>Every habit is archived. <Link to="/habits">Bring one back or create one</Link>.</Empty>}
        {inPlay.length > 0 && due.length === 0 && <Empty>All done for now. Well played!</Empty>}
        <ul className="habit-list" aria-label="Due habits">
          {due.map((h) => (
            <li key={h.id} className="habit-row">
              <Action className="check" onAction={() => complete(h)} aria-label={`Complete ${h.title}`}>
                <Icon name="check" size={24} />
              </Action>
              <HabitSummary h={h} dayStartHour={dayStartHour} pending={0} />
            </li>
          ))}
        </ul>
      </Section>
      {done.length > 0 && (
        <Section title="Done">
          <ul className="habit-list" aria-label="Done habits">
            {done.map((h) => (
              <li key={h.id} className={`habit-row done${pendingOf(h) > 0 ? ' pending' : ''}`}>
                <span className="check checked"><Icon name={pendingOf(h) > 0 ? 'wifiOff' : 'check'} size={24} /></span>
                <HabitSummary h={h} dayStartHour={dayStartHour} pending={pendingOf(h)} />
              </li>
            ))}
          </ul>
        </Section>
      )}
      <ReportCard />
    </div>
  )
}

/** A TIMES_PER_WEEK habit counts at most once a day: completed today, it waits for tomorrow. */
function doneToday(h: Habit, dayStartHour: number): boolean {
  return h.recurrence.type === 'TIMES_PER_WEEK' && h.lastAttendedDate !== null &&
    playerDayOf(h.lastAttendedDate, h.timeZone, dayStartHour) === playerToday(h.timeZone, dayStartHour)
}

/** While a vacation holds today or is ahead: nothing wholly inside it is due. */
function VacationNotice({ settings: { vacation, timeZone, dayStartHour } }: { settings: Settings }) {
  if (!vacation) return null
  const today = playerToday(timeZone, dayStartHour)
  if (vacation.to < today) return null
  return (
    <Notice kind="info">
      {vacation.from <= today ? 'On vacation' : `Vacation from ${formatDate(vacation.from)}`} until {formatDate(vacation.to)}: habits inside it are not due, and streaks carry over. <Link to="/settings">Settings</Link>
    </Notice>
  )
}

function HabitSummary({ h, dayStartHour, pending }: { h: Habit; dayStartHour: number; pending: number }) {
  const today = playerToday(h.timeZone, dayStartHour)
  const resting = h.recurrence.type === 'DAILY' && h.restDays.includes(weekdayOf(today))
  return (
    <div className="habit-main">
      <span className="habit-title ellipsis" title={h.title}>{h.title}</span>
      <span className="habit-meta">
        <span>{recurrenceLabel(h.recurrence)}</span>
        {pending > 0 && <span className="pill pending-pill" title="Saved on this device: it counts once it reaches the server.">Pending: sends when online</span>}
        {h.recurrence.type === 'TIMES_PER_WEEK' && <WeekProgress h={h} today={today} pending={pending} />}
        {resting && <span className="pill" title={restDaysLabel(h.restDays)}>Rest day</span>}
        {h.associatedQuestId && <span className="pill">Quest</span>}
        {h.tags.slice(0, 3).map((t) => <span key={t} className="tag ellipsis">#{t}</span>)}
      </span>
      <Streak streak={h.streak} best={h.bestStreak} />
    </div>
  )
}

/** This week's completions of a TIMES_PER_WEEK habit out of the count it needs (`1/3 this week`), and those waiting to be sent. */
function WeekProgress({ h, today, pending }: { h: Habit; today: string; pending: number }) {
  const week = useLoad(() => habitWindows(h.id, today, addDays(today, 1)).then((ws) => ws[0]), [h.id, h.lastAttendedDate, today])
  const need = h.recurrence.timesPerWeek ?? 1
  if (!week.data) return null
  const n = week.data.completions
  const label = `${n + pending} of ${need} this week${pending > 0 ? `, ${pending} pending` : ''}`
  return <span className="pill num" data-testid="week-progress" aria-label={label}>{n + pending}/{need} this week{pending > 0 ? `, ${pending} pending` : ''}</span>
}

export function Streak({ streak, best }: { streak: number; best: number }) {
  if (streak === 0 && best === 0) return null
  return (
    <span className="streak" title={`Streak ${streak}, best ${best}`} aria-label={`Streak ${streak}, best ${best}`}>
      {Array.from({ length: Math.max(1, Math.min(streak, 5)) }, (_, i) => <Icon key={i} name="flame" size={16} className={streak === 0 ? 'cold' : undefined} />)}
      <span className="num">{streak}</span>
    </span>
  )
}

/**
 * What happened to the hero while the player was away (missed habits' damage, a death): the
 * avatar as this device last saw it, against the first reading made after Today opened.
 */
function useSinceLastVisit() {
  const { avatarId, avatar, avatarReads } = useGame()
  const [previous] = useState(() => lastSeen(avatarId))
  const [readsAtOpening] = useState(avatarReads)
  const [note, setNote] = useState<{ kind: 'warn' | 'error'; text: string } | null>(null)
  const [compared, setCompared] = useState(false)
  useEffect(() => {
    if (compared || !avatar || avatarReads <= readsAtOpening) return
    setCompared(true)
    if (!previous) return
    const c = changeBetween(previous, avatar)
    if (c.died) setNote({ kind: 'error', text: `You died since your last visit. ${DEATH_EXPLAINED} Missed habits cost health; so do a boss's strikes.` })
    else if (c.healthLost > 0) setNote({ kind: 'warn', text: `You lost ${c.healthLost} health since your last visit: each missed habit window costs 5.` })
  }, [avatar, avatarReads, readsAtOpening, previous, compared])
  return note && <Notice kind={note.kind}>{note.text}</Notice>
}
