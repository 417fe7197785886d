import { useId, useState } from 'react'
import { createHabit, deleteHabit, getHabit, getSettings, habitWindows, listHabits, setHabitArchived, updateHabit } from '../api/game'
import type { Habit } from '../api/types'
import { useGame } from '../game'
import { Link } from '../router'
import { formatDate, playerToday } from '../time'
import { useLoad } from '../ui/hooks'
import { Action, Empty, ErrorNotice, Loading, Section, messageOf } from '../ui/parts'
import { emptyHabit, HabitForm, Heatmap, heatmapSpan, recurrenceLabel, restDaysLabel } from './habit-parts'
import { HabitStatsPanel } from './habit-stats'
import { Streak } from './Today'

export function HabitsScreen() {
  const game = useGame()
  const habits = useLoad(() => listHabits(game.avatarId), [game.avatarId])
  // The hour the player's days start at: the heat map's today.
  const settings = useLoad(() => getSettings(game.avatarId), [game.avatarId])
  const [creating, setCreating] = useState(false)
  const [showArchived, setShowArchived] = useState(false)
  const archivedListId = useId()
  const showForm = creating || habits.data?.length === 0
  const dayStartHour = settings.data?.dayStartHour ?? 0
  const inPlay = habits.data?.filter((h) => !h.archived) ?? []
  const archived = habits.data?.filter((h) => h.archived) ?? []
  const replace = (fresh: Habit) => habits.set((l) => l?.map((x) => (x.id === fresh.id ? fresh : x)))
  const remove = (id: string) => habits.set((l) => l?.filter((x) => x.id !== id))

  return (
    <div className="screen">
      <h1>Habits</h1>
      <Section title="New habit" actions={!showForm && <button type="button" className="primary small" onClick={() => setCreating(true)}>New habit</button>}>
        {showForm ? (
          <HabitForm
            initial={emptyHabit()}
            submitLabel="Create habit"
            onCancel={habits.data?.length ? () => setCreating(false) : undefined}
            onSubmit={async (h) => {
              await createHabit(game.avatarId, h)
              game.announce('info', `Habit created: ${h.title}`)
              setCreating(false)
              await habits.reload()
            }}
          />
        ) : <p className="muted">Track something you want to do daily, a few times a week, every few days, weekly or monthly. Every completion grows your hero.</p>}
        {showForm && <p className="field-hint">Habits count their days in your <Link to="/settings">settings</Link>' time zone, from your day start.</p>}
      </Section>
      <Section title="Your habits">
        {habits.error && <ErrorNotice error={habits.error} />}
        {!habits.data && !habits.error && <Loading what="habits" />}
        {habits.data?.length === 0 && <Empty>No habits yet.</Empty>}
        {habits.data && habits.data.length > 0 && inPlay.length === 0 && <Empty>Every habit is archived.</Empty>}
        <ul className="stack" aria-label="Your habits">
          {inPlay.map((h) => <HabitItem key={h.id} habit={h} dayStartHour={dayStartHour} onChanged={replace} onDeleted={remove} />)}
        </ul>
      </Section>
      {archived.length > 0 && (
        <Section title="Archived" actions={
          <button type="button" className="small" aria-expanded={showArchived} aria-controls={archivedListId} onClick={() => setShowArchived(!showArchived)}>
            {showArchived ? 'Hide' : `Show ${archived.length}`}<span className="visually-hidden"> archived habits</span>
          </button>
        }>
          <p className="muted">Kept with their history, out of play: nothing of them is due or reminded of until you bring them back.</p>
          {showArchived && (
            <ul className="stack" id={archivedListId} aria-label="Archived habits">
              {archived.map((h) => <HabitItem key={h.id} habit={h} dayStartHour={dayStartHour} onChanged={replace} onDeleted={remove} />)}
            </ul>
          )}
        </Section>
      )}
    </div>
  )
}

function HabitItem({ habit: h, dayStartHour, onChanged, onDeleted }: { habit: Habit; dayStartHour: number; onChanged: (fresh: Habit) => void; onDeleted: (id: string) => void }) {
  const game = useGame()
  const [mode, setMode] = useState<'view' | 'edit' | 'history'>('view')
  const today = playerToday(h.timeZone, dayStartHour)
  const windows = useLoad(() => {
    if (mode !== 'history') return Promise.resolve(undefined)
    const { from, to } = heatmapSpan(today)
    return habitWindows(h.id, from, to)
  }, [h.id, mode, h.lastAttendedDate, today])

  const remove = async () => {
    if (!window.confirm(`Delete "${h.title}" and its history? This cannot be undone.`)) return
    try {
      await deleteHabit(h.id)
      game.announce('info', `Deleted ${h.title}.`)
      onDeleted(h.id)
    } catch (e) {
      game.announce('error', messageOf(e))
    }
  }

  const archive = async () => {
    try {
      const fresh = await setHabitArchived(h.id, !h.archived)
      game.announce('info', fresh.archived ? `Archived ${h.title}: kept with its history, out of play.` : `${h.title} is back in play.`)
      setMode('view')
      onChanged(fresh)
    } catch (e) {
      game.announce('error', messageOf(e))
    }
  }

  return (
    <li className={`habit-item${h.archived ? ' archived' : ''}`}>
      <div className="habit-item-head">
        <div className="habit-main">
          <span className="habit-title ellipsis" title={h.title}>{h.title}</span>
          <span className="habit-meta">
            <span>{recurrenceLabel(h.recurrence)}</span>
            {h.restDays.length > 0 && <span>{restDaysLabel(h.restDays)}</span>}
            {!h.followsAvatarTimeZone && <span title="This habit keeps its own time zone">{h.timeZone}</span>}
            {h.associatedQuestId && <span className="pill">Quest</span>}
            {h.lastAttendedDate && <span>Last: {formatDate(h.lastAttendedDate)}</span>}
            {h.reminderTime && <span>Reminder {h.reminderTime}</span>}
          </span>
          {h.tags.length > 0 && <span className="tags">{h.tags.map((t) => <span key={t} className="tag ellipsis">#{t}</span>)}</span>}
        </div>
        <Streak streak={h.streak} best={h.bestStreak} />
      </div>
      {h.description && mode === 'view' && <p className="muted wrap">{h.description}</p>}
      <div className="row">
        <button type="button" className="small" aria-expanded={mode === 'history'} onClick={() => setMode(mode === 'history' ? 'view' : 'history')}>
          History<span className="visually-hidden"> of {h.title}</span>
        </button>
        <button type="button" className="small" aria-expanded={mode === 'edit'} onClick={() => setMode(mode === 'edit' ? 'view' : 'edit')}>
          Edit<span className="visually-hidden"> {h.title}</span>
        </button>
        <Action className="small" onAction={archive}>{h.archived ? 'Unarchive' : 'Archive'}<span className="visually-hidden"> {h.title}</span></Action>
        <Action className="small danger" onAction={remove}>Delete<span className="visually-hidden"> {h.title}</span></Action>
      </div>
      {mode === 'history' && <HabitStatsPanel habitId={h.id} title={h.title} version={h.lastAttendedDate} />}
      {mode === 'history' && (windows.data ? <Heatmap windows={windows.data} today={today} /> : windows.error ? <ErrorNotice error={windows.error} /> : <Loading what="history" />)}
      {mode === 'edit' && (
        <HabitForm
          initial={{ title: h.title, description: h.description, tags: h.tags, recurrence: h.recurrence, restDays: h.restDays, reminderTime: h.reminderTime }}
          submitLabel="Save"
          editing
          onCancel={() => setMode('view')}
          onSubmit={async (input) => {
            await updateHabit(h, input)
            onChanged(await getHabit(h.id))
            setMode('view')
          }}
        />
      )}
    </li>
  )
}
