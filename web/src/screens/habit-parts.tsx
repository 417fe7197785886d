import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react'
import type { HabitInput } from '../api/game'
import { DAYS, type DayOfWeek, type Recurrence, type RecurrenceType } from '../api/types'
import { addDays, dateOf, windowContaining } from '../../../src/platform/time/index.js'
import { localDateTime } from '../time'
import { useSubmit } from '../ui/hooks'
import { Field, Notice } from '../ui/parts'

const cap = (s: string) => s.charAt(0) + s.slice(1).toLowerCase()

export function recurrenceLabel(r: Recurrence): string {
  if (r.type === 'WEEKLY') return `Weekly on ${cap(r.dayOfWeek ?? 'MONDAY')}`
  if (r.type === 'MONTHLY') return `Monthly on day ${r.dayOfMonth}${r.dayOfMonth === 31 ? ' (or the last)' : ''}`
  return 'Daily'
}

/** Daily; weekly on a day; monthly on a date (31 = the month's last day). */
export function RecurrencePicker({ value, onChange, errors }: { value: Recurrence; onChange: (r: Recurrence) => void; errors: Record<string, string> }) {
  const set = (type: RecurrenceType) => onChange({
    type,
    dayOfWeek: type === 'WEEKLY' ? value.dayOfWeek ?? 'MONDAY' : null,
    dayOfMonth: type === 'MONTHLY' ? value.dayOfMonth ?? 1 : null,
  })
  return (
    <fieldset className="recurrence">
      <legend>Repeats</legend>
      <div className="segmented" role="radiogroup" aria-label="Repeats">
        {(['DAILY', 'WEEKLY', 'MONTHLY'] as const).map((t) => (
          <label key={t} className={value.type === t ? 'on' : ''}>
            <input type="radio" name="recurrence" value={t} checked={value.type === t} onChange={() => set(t)} />
            {cap(t)}
          </label>
        ))}
      </div>
      {value.type === 'WEEKLY' && (
        <Field label="Day of the week" error={errors.dayOfWeek ?? errors.recurrenceType}>
          {(id, d) => (
            <select id={id} aria-describedby={d} value={value.dayOfWeek ?? 'MONDAY'} onChange={(e) => onChange({ ...value, dayOfWeek: e.target.value as DayOfWeek })}>
              {DAYS.map((day) => <option key={day} value={day}>{cap(day)}</option>)}
            </select>
          )}
        </Field>
      )}
      {value.type === 'MONTHLY' && (
        <Field label="Day of the month" error={errors.dayOfMonth} hint="31 means the last day in shorter months.">
          {(id, d) => (
            <select id={id} aria-describedby={d} value={value.dayOfMonth ?? 1} onChange={(e) => onChange({ ...value, dayOfMonth: Number(e.target.value) })}>
              {Array.from({ length: 31 }, (_, i) => i + 1).map((n) => <option key={n} value={n}>{n}</option>)}
            </select>
          )}
        </Field>
      )}
    </fieldset>
  )
}

export const emptyHabit = (): HabitInput => ({ title: '', description: '', tags: [], recurrence: { type: 'DAILY', dayOfWeek: null, dayOfMonth: null }, reminderTime: null })

/** Create or edit a habit; problems' field messages appear next to their fields. */
export function HabitForm({ initial, submitLabel, onSubmit, onCancel, editing = false }: {
  initial: HabitInput
  submitLabel: string
  /** Editing an existing habit: a new schedule restarts its streak, which the form says. */
  editing?: boolean
  onSubmit: (h: HabitInput) => Promise<void>
  onCancel?: () => void
}) {
  const [h, setH] = useState(initial)
  const [tagText, setTagText] = useState(initial.tags.join(', '))
  const { busy, error, fields, submit: run } = useSubmit()

  const submit = (e: FormEvent) => run(e, async () => {
    const tags = [...new Set(tagText.split(',').map((t) => t.trim()).filter(Boolean))]
    await onSubmit({ ...h, title: h.title, tags })
  }, {
    fields: (err) => {
      // Recurrence problems name recurrenceType/dayOfWeek/dayOfMonth, or recurrence.* on edits.
      const f = Object.fromEntries(Object.entries(err.fields).map(([k, v]) => [k.replace(/^recurrence\./, ''), v]))
      if (f.type) f.recurrenceType = f.type
      const tagError = Object.entries(err.fields).find(([k]) => k.startsWith('tags'))
      return tagError ? { ...f, tags: tagError[1] } : f
    },
  })

  return (
    <form className="habit-form" onSubmit={submit} noValidate>
      <Field label="Title" error={fields.title}>
        {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!fields.title} value={h.title} onChange={(e) => setH({ ...h, title: e.target.value })} maxLength={200} placeholder="Read 20 pages" />}
      </Field>
      <Field label="Description (optional)" error={fields.description}>
        {(id, d) => <textarea id={id} aria-describedby={d} value={h.description} onChange={(e) => setH({ ...h, description: e.target.value })} rows={2} maxLength={2000} />}
      </Field>
      <Field label="Tags (comma-separated)" error={fields.tags} hint="Up to 20 tags, each up to 40 characters.">
        {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!fields.tags} value={tagText} onChange={(e) => setTagText(e.target.value)} placeholder="health, morning" />}
      </Field>
      <RecurrencePicker value={h.recurrence} onChange={(recurrence) => setH({ ...h, recurrence })} errors={fields} />
      <Field label="Reminder (optional)" error={fields.reminderTime} hint="On the last day of each window, at this time, if the habit is not done yet.">
        {(id, d) => (
          <input id={id} type="time" aria-describedby={d} aria-invalid={!!fields.reminderTime} value={h.reminderTime ?? ''}
            onChange={(e) => setH({ ...h, reminderTime: e.target.value || null })} />
        )}
      </Field>
      {editing && recurrenceLabel(h.recurrence) !== recurrenceLabel(initial.recurrence) && (
        <Notice kind="warn">A new schedule starts the habit over: its streak resets and the current window is open again.</Notice>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      <div className="row">
        <button className="primary" type="submit" disabled={busy} aria-busy={busy || undefined}>{submitLabel}</button>
        {onCancel && <button type="button" className="ghost" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  )
}

/**
 * A year of completions as a heat map: one column per week (Monday on top), most recent on the
 * right, in the habit's own time zone.
 */
export function Heatmap({ history, timeZone }: { history: { date: string }[]; timeZone: string }) {
  const { weeks, total, counts } = useMemo(() => {
    const counts = new Map<string, number>()
    for (const h of history) counts.set(dateOf(h.date), (counts.get(dateOf(h.date)) ?? 0) + 1)
    const today = dateOf(localDateTime(timeZone))
    const lastMonday = windowContaining({ type: 'WEEKLY', dayOfWeek: 'MONDAY' }, today).start
    const first = addDays(lastMonday, -52 * 7)
    const weeks: string[][] = []
    for (let w = 0; w < 53; w++) weeks.push(Array.from({ length: 7 }, (_, d) => addDays(first, w * 7 + d)))
    const total = [...counts.entries()].filter(([d]) => d >= first && d <= today).reduce((n, [, c]) => n + c, 0)
    return { weeks, total, counts, today }
  }, [history, timeZone])
  const today = dateOf(localDateTime(timeZone))
  // On a narrow screen the year scrolls; start at its recent end.
  const scroller = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (scroller.current) scroller.current.scrollLeft = scroller.current.scrollWidth
  }, [weeks])
  return (
    <figure className="heatmap">
      <figcaption>{total} completion{total === 1 ? '' : 's'} in the last year</figcaption>
      <div className="heatmap-scroll" ref={scroller} role="img" aria-label={`${total} completions in the last year`}>
        <div className="heatmap-grid">
          {weeks.map((week) => (
            <div className="heatmap-week" key={week[0]}>
              {week.map((day) => {
                const n = counts.get(day) ?? 0
                return <span key={day} className={`cell${day > today ? ' future' : ''}`} data-level={Math.min(n, 3)} title={`${day}: ${n ? 'done' : 'not done'}`} />
              })}
            </div>
          ))}
        </div>
      </div>
    </figure>
  )
}
