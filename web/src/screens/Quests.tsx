import { useState, type FormEvent } from 'react'
import { ApiError } from '../api/client'
import { createQuest, deleteQuest, joinQuest, leaveQuest, listQuests, myGuild, participation, questHabits, type QuestInput } from '../api/game'
import { DAYS, type DayOfWeek, type Participation, type Quest, type QuestHabit, type QuestHabitEntry, type RecurrenceType } from '../api/types'
import { useGame } from '../game'
import { Link } from '../router'
import { describeDuration, formatDate } from '../time'
import { useLoad, useSubmit } from '../ui/hooks'
import { Action, Bar, Empty, ErrorNotice, Field, Loading, Notice, Section, messageOf } from '../ui/parts'
import { EVERY_N_DAYS_MAX, EVERY_N_DAYS_MIN, RECURRENCE_TYPES, TIMES_PER_WEEK_MAX, recurrenceLabel } from './habit-parts'

const DURATIONS = [['P1D', '1 day'], ['P3D', '3 days'], ['P7D', '1 week'], ['P14D', '2 weeks'], ['P30D', '30 days']] as const

interface QuestWithProgress {
  quest: Quest
  habits: QuestHabitEntry[]
  progress: Participation | null
}

/** A quest deleted after the list was read has no habits to show: it drops out rather than failing the screen. */
const habitsOf = (questId: string): Promise<QuestHabitEntry[] | null> =>
  questHabits(questId).catch((e: unknown) => {
    if (e instanceof ApiError && e.status === 404) return null
    throw e
  })

async function questsWithProgress(avatarId: string): Promise<QuestWithProgress[]> {
  const quests = await listQuests(avatarId)
  const loaded = await Promise.all(quests.map(async (quest) => {
    const [habits, progress] = await Promise.all([habitsOf(quest.id), participation(quest.id, avatarId)])
    return habits === null ? null : { quest, habits, progress }
  }))
  return loaded.filter((q): q is QuestWithProgress => q !== null)
}

export function QuestsScreen() {
  const game = useGame()
  const quests = useLoad(() => questsWithProgress(game.avatarId), [game.avatarId])
  const [creating, setCreating] = useState(false)
  const joined = quests.data?.filter((q) => q.progress) ?? []
  const open = quests.data?.filter((q) => !q.progress) ?? []

  return (
    <div className="screen">
      <h1>Quests</h1>
      <Section title="New quest" actions={!creating && <button type="button" className="primary small" onClick={() => setCreating(true)}>New quest</button>}>
        {creating
          ? <QuestForm onCancel={() => setCreating(false)} onCreated={async () => { setCreating(false); await quests.reload() }} />
          : <p className="muted">A quest bundles habits under a shared goal and deadline. Whoever joins gets its habits and a reward when all are done in time.</p>}
      </Section>
      {quests.error && <ErrorNotice error={quests.error} />}
      {!quests.data && !quests.error && <Loading what="quests" />}
      <Section title="Your quests">
        {quests.data && joined.length === 0 && <Empty>You have not joined a quest yet.</Empty>}
        <ul className="stack" aria-label="Your quests">
          {joined.map((q) => <QuestCard key={q.quest.id} q={q} reload={quests.reload} />)}
        </ul>
      </Section>
      <Section title="Open quests">
        {quests.data && open.length === 0 && <Empty>No other quests right now. Create one!</Empty>}
        <ul className="stack" aria-label="Open quests">
          {open.map((q) => <QuestCard key={q.quest.id} q={q} reload={quests.reload} />)}
        </ul>
      </Section>
    </div>
  )
}

function QuestCard({ q: { quest, habits, progress }, reload }: { q: QuestWithProgress; reload: () => Promise<void> }) {
  const game = useGame()
  const [error, setError] = useState<string>()
  const mine = quest.ownerAvatarId === game.avatarId
  const run = async (f: () => Promise<unknown>, done: string) => {
    setError(undefined)
    try {
      await f()
      game.announce('info', done)
      await reload()
    } catch (e) {
      setError(e instanceof ApiError && e.status === 403 && e.message ? e.message : messageOf(e))
    }
  }
  return (
    <li className="quest" aria-label={quest.name}>
      <div className="card-head">
        <h3 className="wrap">{quest.name}</h3>
        <span className="row">
          {quest.guildId && <span className="pill">Guild</span>}
          {mine && <span className="pill">Yours</span>}
        </span>
      </div>
      {quest.description && <p className="muted wrap">{quest.description}</p>}
      <p className="muted">{describeDuration(quest.duration)} · reward {quest.reward.experience} XP, {quest.reward.money} gold · {quest.habitIds.length} habit{quest.habitIds.length === 1 ? '' : 's'}</p>
      {progress ? <Progress p={progress} habits={habits} /> : (
        <ul className="rows" aria-label="Quest habits">
          {habits.map((h) => (
            <li key={h.id} className="row-item">
              <span className="ellipsis grow" title={h.title}>{h.title}</span>
              <span className="muted">{recurrenceLabel(h.recurrence)}</span>
            </li>
          ))}
        </ul>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      <div className="row">
        {!progress && <Action className="primary small" onAction={() => run(() => joinQuest(quest.id, game.avatarId), `You joined ${quest.name}: its habits are on your Today list.`)}>Join<span className="visually-hidden"> {quest.name}</span></Action>}
        {progress?.status === 'IN_PROGRESS' && <Action className="small" onAction={() => run(() => leaveQuest(quest.id, game.avatarId), `You left ${quest.name}. Its habits stay yours.`)}>Leave<span className="visually-hidden"> {quest.name}</span></Action>}
        {mine && <Action className="small danger" onAction={async () => { if (window.confirm(`Delete the quest ${quest.name}?`)) await run(() => deleteQuest(quest.id), `Deleted ${quest.name}.`) }}>Delete<span className="visually-hidden"> {quest.name}</span></Action>}
      </div>
    </li>
  )
}

/** The avatar's progress; each habit's schedule is the quest's entry's. */
function Progress({ p, habits }: { p: Participation; habits: QuestHabitEntry[] }) {
  const schedule = (habitId: string) => {
    const entry = habits.find((h) => h.id === habitId)
    return entry && recurrenceLabel(entry.recurrence)
  }
  return (
    <div className="progress" data-testid="quest-progress">
      {p.status === 'COMPLETED' && <Notice kind="success"><strong>Quest complete!</strong> Paid out: {p.payout.experience} XP and {p.payout.money} gold.</Notice>}
      {p.status === 'EXPIRED' && <Notice kind="warn">Time ran out on this quest; its habits stay yours.</Notice>}
      {p.status === 'IN_PROGRESS' && <p className="muted">Until {formatDate(p.window.to)} · payout on completion: {p.payout.experience} XP, {p.payout.money} gold. <Link to="/">Complete its habits today</Link>.</p>}
      <Bar kind="xp" label={`Progress (${p.percent}%)`} value={p.done} max={p.required} />
      <ul className="rows" aria-label="Quest habits">
        {p.habits.map((h) => (
          <li key={h.habitId} className="row-item">
            <span className="ellipsis grow" title={h.title}>{h.title}</span>
            <span className="muted">{schedule(h.habitId)}</span>
            <span className="num">{h.done} / {h.required}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}

interface HabitDraft { title: string; type: RecurrenceType; dayOfWeek: DayOfWeek; dayOfMonth: number; timesPerWeek: number; everyNDays: number | null }
const newDraft = (): HabitDraft => ({ title: '', type: 'DAILY', dayOfWeek: 'MONDAY', dayOfMonth: 1, timesPerWeek: 3, everyNDays: 2 })

/** The draft's schedule: its type and that type's field, as the API takes it. */
function recurrenceOf(h: HabitDraft): QuestHabit['recurrence'] {
  if (h.type === 'WEEKLY') return { type: h.type, dayOfWeek: h.dayOfWeek }
  if (h.type === 'MONTHLY') return { type: h.type, dayOfMonth: h.dayOfMonth }
  if (h.type === 'TIMES_PER_WEEK') return { type: h.type, timesPerWeek: h.timesPerWeek }
  // An empty count goes as null: the API refuses it naming the field, which the form shows.
  if (h.type === 'EVERY_N_DAYS') return { type: h.type, everyNDays: h.everyNDays } as never
  return { type: h.type }
}

function QuestForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: () => Promise<void> }) {
  const game = useGame()
  const guild = useLoad(() => myGuild(game.avatarId), [game.avatarId])
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [duration, setDuration] = useState('P7D')
  const [experience, setExperience] = useState(100)
  const [money, setMoney] = useState(50)
  const [forGuild, setForGuild] = useState(false)
  const [habits, setHabits] = useState<HabitDraft[]>([newDraft()])
  const { busy, error, fields, submit: run } = useSubmit()

  const submit = (e: FormEvent) => run(e, async () => {
    const entries: QuestHabit[] = habits.filter((h) => h.title.trim()).map((h, i) => ({
      habitId: `h${i + 1}`,
      title: h.title.trim(),
      recurrence: recurrenceOf(h),
    }))
    const q: QuestInput = { name, description, duration, reward: { experience, money }, habits: entries, ...(forGuild && guild.data ? { guildId: guild.data.id } : {}) }
    await createQuest(q, game.avatarId)
    game.announce('info', `Quest created: ${name}`)
    await onCreated()
  }, { fields: (err) => ({ ...err.fields, experience: err.fields['reward.experience'] ?? '', money: err.fields['reward.money'] ?? '' }) })

  const setHabit = (i: number, h: Partial<HabitDraft>) => setHabits((l) => l.map((x, j) => (j === i ? { ...x, ...h } : x)))

  return (
    <form className="quest-form" onSubmit={submit} noValidate>
      <Field label="Quest name" error={fields.name}>
        {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!fields.name} value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="Spring training" />}
      </Field>
      <Field label="Description (optional)" error={fields.description}>
        {(id, d) => <textarea id={id} aria-describedby={d} value={description} onChange={(e) => setDescription(e.target.value)} rows={2} />}
      </Field>
      <div className="grid-3">
        <Field label="Duration" error={fields.duration}>
          {(id, d) => (
            <select id={id} aria-describedby={d} value={duration} onChange={(e) => setDuration(e.target.value)}>
              {DURATIONS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
            </select>
          )}
        </Field>
        <Field label="Reward XP" error={fields.experience || undefined}>
          {(id, d) => <input id={id} aria-describedby={d} type="number" min={0} max={100000} value={experience} onChange={(e) => setExperience(Math.trunc(Number(e.target.value)))} />}
        </Field>
        <Field label="Reward gold" error={fields.money || undefined}>
          {(id, d) => <input id={id} aria-describedby={d} type="number" min={0} max={100000} value={money} onChange={(e) => setMoney(Math.trunc(Number(e.target.value)))} />}
        </Field>
      </div>
      <p className="field-hint">The payout is capped at 20 XP and 10 gold per required completion.</p>
      {guild.data && (
        <label className="check-label">
          <input type="checkbox" checked={forGuild} onChange={(e) => setForGuild(e.target.checked)} /> Only for my guild (<span className="wrap">{guild.data.name}</span>)
        </label>
      )}
      <fieldset>
        <legend>Habits</legend>
        {habits.map((h, i) => (
          <div key={i} className="quest-habit">
            <Field label={`Habit ${i + 1}`} error={fields[`habits.${i}.title`]}>
              {(id, d) => <input id={id} aria-describedby={d} value={h.title} onChange={(e) => setHabit(i, { title: e.target.value })} maxLength={200} placeholder="Run 5 km" />}
            </Field>
            <Field label="Repeats">
              {(id) => (
                <select id={id} value={h.type} onChange={(e) => setHabit(i, { type: e.target.value as RecurrenceType })}>
                  {RECURRENCE_TYPES.map(({ type, label }) => <option key={type} value={type}>{label}</option>)}
                </select>
              )}
            </Field>
            {h.type === 'WEEKLY' && (
              <Field label="On">
                {(id) => <select id={id} value={h.dayOfWeek} onChange={(e) => setHabit(i, { dayOfWeek: e.target.value as DayOfWeek })}>{DAYS.map((d) => <option key={d} value={d}>{d.charAt(0) + d.slice(1).toLowerCase()}</option>)}</select>}
              </Field>
            )}
            {h.type === 'MONTHLY' && (
              <Field label="Day">
                {(id) => <select id={id} value={h.dayOfMonth} onChange={(e) => setHabit(i, { dayOfMonth: Number(e.target.value) })}>{Array.from({ length: 31 }, (_, n) => <option key={n} value={n + 1}>{n + 1}</option>)}</select>}
              </Field>
            )}
            {h.type === 'TIMES_PER_WEEK' && (
              <Field label="Times a week" error={fields[`habits.${i}.recurrence.timesPerWeek`]}>
                {(id, d) => <select id={id} aria-describedby={d} value={h.timesPerWeek} onChange={(e) => setHabit(i, { timesPerWeek: Number(e.target.value) })}>{Array.from({ length: TIMES_PER_WEEK_MAX }, (_, n) => <option key={n} value={n + 1}>{n + 1}</option>)}</select>}
              </Field>
            )}
            {h.type === 'EVERY_N_DAYS' && (
              <Field label="Every how many days" error={fields[`habits.${i}.recurrence.everyNDays`]} hint={`${EVERY_N_DAYS_MIN} to ${EVERY_N_DAYS_MAX}`}>
                {(id, d) => (
                  <input id={id} type="number" inputMode="numeric" min={EVERY_N_DAYS_MIN} max={EVERY_N_DAYS_MAX} aria-describedby={d} aria-invalid={!!fields[`habits.${i}.recurrence.everyNDays`]}
                    value={h.everyNDays ?? ''} onChange={(e) => setHabit(i, { everyNDays: e.target.value === '' ? null : Math.trunc(Number(e.target.value)) })} />
                )}
              </Field>
            )}
            {habits.length > 1 && <button type="button" className="small ghost" onClick={() => setHabits((l) => l.filter((_, j) => j !== i))}>Remove<span className="visually-hidden"> habit {i + 1}</span></button>}
          </div>
        ))}
        <button type="button" className="small" onClick={() => setHabits((l) => [...l, newDraft()])}>Add a habit</button>
      </fieldset>
      {error && <Notice kind="error">{error}</Notice>}
      <div className="row">
        <button className="primary" type="submit" disabled={busy} aria-busy={busy || undefined}>Create quest</button>
        <button type="button" className="ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  )
}
