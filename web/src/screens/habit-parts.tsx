import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react'
import type { HabitInput } from '../api/game'
import { DAYS, type DayOfWeek, type HabitWindow, type Recurrence, type RecurrenceType, type WindowStatus } from '../api/types'
import { addDays, windowContaining, type LocalDate } from '../../../src/platform/time/index.js'
import { useSubmit } from '../ui/hooks'
import { Field, Notice } from '../ui/parts'

const cap = (s: string) => s.charAt(0) + s.slice(1).toLowerCase()
/** `SATURDAY` → `Sat`. */
const shortDay = (d: DayOfWeek) => cap(d).slice(0, 3)

/** The schedule types, in the order the forms offer them. */
export const RECURRENCE_TYPES: { type: RecurrenceType; label: string }[] = [
  { type: 'DAILY', label: 'Daily' },
  { type: 'WEEKLY', label: 'Weekly' },
  { type: 'MONTHLY', label: 'Monthly' },
  { type: 'TIMES_PER_WEEK', label: 'Times a week' },
  { type: 'EVERY_N_DAYS', label: 'Every N days' },
]

/** The API's bounds of the flexible schedules (DESIGN §9.3); the server checks them too. */
export const TIMES_PER_WEEK_MAX = 7
export const EVERY_N_DAYS_MIN = 2
export const EVERY_N_DAYS_MAX = 365

export function recurrenceLabel(r: Recurrence): string {
  if (r.type === 'WEEKLY') return `Weekly on ${cap(r.dayOfWeek ?? 'MONDAY')}`
  if (r.type === 'MONTHLY') return `Monthly on day ${r.dayOfMonth}${r.dayOfMonth === 31 ? ' (or the last)' : ''}`
  if (r.type === 'TIMES_PER_WEEK') return r.timesPerWeek === 1 ? 'Once a week' : `${r.timesPerWeek} times a week`
  if (r.type === 'EVERY_N_DAYS') return `Every ${r.everyNDays} days`
  return 'Daily'
}

/** `Rest Sat, Sun`, or nothing. */
export const restDaysLabel = (days: readonly DayOfWeek[]) => (days.length ? `Rest ${DAYS.filter((d) => days.includes(d)).map(shortDay).join(', ')}` : '')

/**
 * Daily; weekly on a day; monthly on a date (31 = the month's last day); a number of times a week
 * (at most once a day); every N days.
 */
function RecurrencePicker({ value, onChange, errors }: { value: Recurrence; onChange: (r: Recurrence) => void; errors: Record<string, string> }) {
  const set = (type: RecurrenceType) => onChange({
    type,
    dayOfWeek: type === 'WEEKLY' ? value.dayOfWeek ?? 'MONDAY' : null,
    dayOfMonth: type === 'MONTHLY' ? value.dayOfMonth ?? 1 : null,
    timesPerWeek: type === 'TIMES_PER_WEEK' ? value.timesPerWeek ?? 3 : null,
    everyNDays: type === 'EVERY_N_DAYS' ? value.everyNDays ?? 2 : null,
  })
  return (
    <fieldset className="recurrence">
      <legend>Repeats</legend>
      <div className="segmented" role="radiogroup" aria-label="Repeats">
        {RECURRENCE_TYPES.map(({ type: t, label }) => (
          <label key={t} className={value.type === t ? 'on' : ''}>
            <input type="radio" name="recurrence" value={t} checked={value.type === t} onChange={() => set(t)} />
            {label}
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
      {value.type === 'TIMES_PER_WEEK' && (
        <Field label="Times a week" error={errors.timesPerWeek} hint="Each week from Monday; at most once a day, each completion rewarded. The week is done at this count.">
          {(id, d) => (
            <select id={id} aria-describedby={d} value={value.timesPerWeek ?? 3} onChange={(e) => onChange({ ...value, timesPerWeek: Number(e.target.value) })}>
              {Array.from({ length: TIMES_PER_WEEK_MAX }, (_, i) => i + 1).map((n) => <option key={n} value={n}>{n}</option>)}
            </select>
          )}
        </Field>
      )}
      {value.type === 'EVERY_N_DAYS' && (
        <Field label="Every how many days" error={errors.everyNDays} hint={`${EVERY_N_DAYS_MIN} to ${EVERY_N_DAYS_MAX}, counted from the habit's first day.`}>
          {(id, d) => (
            <input id={id} type="number" inputMode="numeric" min={EVERY_N_DAYS_MIN} max={EVERY_N_DAYS_MAX} aria-describedby={d} aria-invalid={!!errors.everyNDays}
              value={value.everyNDays ?? ''} onChange={(e) => onChange({ ...value, everyNDays: e.target.value === '' ? null : Math.trunc(Number(e.target.value)) })} />
          )}
        </Field>
      )}
    </fieldset>
  )
}

/** Weekday toggles for a DAILY habit's rest days: those days are not due (no penalty; the streak carries over). */
function RestDaysPicker({ value, onChange, error }: { value: DayOfWeek[]; onChange: (days: DayOfWeek[]) => void; error?: string | undefined }) {
  const toggle = (d: DayOfWeek) => onChange(value.includes(d) ? value.filter((x) => x !== d) : DAYS.filter((x) => x === d || value.includes(x)))
  return (
    <fieldset className="rest-days">
      <legend>Rest days (optional)</legend>
      <div className="segmented" role="group" aria-label="Rest days">
        {DAYS.map((d) => (
          <label key={d} className={value.includes(d) ? 'on' : ''} title={cap(d)}>
            <input type="checkbox" checked={value.includes(d)} onChange={() => toggle(d)} aria-label={`Rest on ${cap(d)}`} />
            {shortDay(d)}
          </label>
        ))}
      </div>
      {error ? <p className="field-error" role="alert">{error}</p> : <p className="field-hint">Not due on these days: no damage, the streak carries over. A change counts from tomorrow.</p>}
    </fieldset>
  )
}

export const emptyHabit = (): HabitInput => ({
  title: '', description: '', tags: [], restDays: [], reminderTime: null,
  recurrence: { type: 'DAILY', dayOfWeek: null, dayOfMonth: null, timesPerWeek: null, everyNDays: null },
})

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
    await onSubmit({ ...h, tags, restDays: h.recurrence.type === 'DAILY' ? h.restDays : [] })
  }, {
    fields: (err) => {
      // Recurrence problems name recurrenceType/dayOfWeek/…, or recurrence.* on edits; rest days restDays(.n).
      const f = Object.fromEntries(Object.entries(err.fields).map(([k, v]) => [k.replace(/^recurrence\./, ''), v]))
      if (f.type) f.recurrenceType = f.type
      const tagError = Object.entries(err.fields).find(([k]) => k.startsWith('tags'))
      const restError = Object.entries(err.fields).find(([k]) => k.startsWith('restDays'))
      return { ...f, ...(tagError ? { tags: tagError[1] } : {}), ...(restError ? { restDays: restError[1] } : {}) }
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
      {h.recurrence.type === 'DAILY' && <RestDaysPicker value={h.restDays} onChange={(restDays) => setH({ ...h, restDays })} error={fields.restDays} />}
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

/** What a cell's colour says, for its title and the legend. */
const STATUS_TEXT: Record<WindowStatus, string> = {
  COMPLETED: 'done', PARTIAL: 'under way', OPEN: 'open', UPCOMING: 'not begun', PENDING: 'ended, being judged', MISSED: 'missed', FROZEN: 'frozen (a streak freeze took it)', NOT_DUE: 'not due',
}
const LEGEND: WindowStatus[] = ['COMPLETED', 'PARTIAL', 'MISSED', 'FROZEN', 'NOT_DUE']
const LEGEND_TEXT: Partial<Record<WindowStatus, string>> = { COMPLETED: 'Done', PARTIAL: 'Partly done', MISSED: 'Missed', FROZEN: 'Frozen', NOT_DUE: 'Not due' }

/** The days a year's heat map shows: 53 weeks from a Monday, up to `today` (at most 371 windows). */
export function heatmapSpan(today: LocalDate): { from: LocalDate; to: LocalDate } {
  const lastMonday = windowContaining({ type: 'WEEKLY', dayOfWeek: 'MONDAY' }, today).start
  return { from: addDays(lastMonday, -52 * 7), to: addDays(today, 1) }
}

/** The heat map in words, month by month (its text equivalent): `2026-03: 12 done, 2 missed`. */
function monthsInWords(byDay: Map<string, HabitWindow>): string {
  const months = new Map<string, { done: number; missed: number }>()
  for (const [day, w] of byDay) {
    const m = months.get(day.slice(0, 7)) ?? { done: 0, missed: 0 }
    if (w.status === 'COMPLETED') m.done++
    if (w.status === 'MISSED') m.missed++
    months.set(day.slice(0, 7), m)
  }
  return [...months].sort(([a], [b]) => a.localeCompare(b)).map(([month, m]) => `${month}: ${m.done} done, ${m.missed} missed`).join('; ')
}

/**
 * A year of the habit's windows as a heat map: one column per week (Monday on top), most recent
 * on the right, each day coloured by what became of its window (done, partly done, missed, frozen,
 * not due), in the habit's own days.
 */
export function Heatmap({ windows, today }: { windows: HabitWindow[]; today: LocalDate }) {
  const { weeks, total, byDay } = useMemo(() => {
    const { from } = heatmapSpan(today)
    const byDay = new Map<string, HabitWindow>()
    for (const w of windows) for (let d = w.start < from ? from : w.start; d < w.end && d <= today; d = addDays(d, 1)) byDay.set(d, w)
    const weeks: string[][] = []
    for (let w = 0; w < 53; w++) weeks.push(Array.from({ length: 7 }, (_, d) => addDays(from, w * 7 + d)))
    const total = windows.reduce((n, w) => n + w.completions, 0)
    return { weeks, total, byDay }
  }, [windows, today])
  // On a narrow screen the year scrolls; start at its recent end.
  const scroller = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (scroller.current) scroller.current.scrollLeft = scroller.current.scrollWidth
  }, [weeks])
  return (
    <figure className="heatmap">
      <figcaption>{total} completion{total === 1 ? '' : 's'} in the last year</figcaption>
      <div className="heatmap-scroll" ref={scroller} role="img" tabIndex={0}
        aria-label={`${total} completions in the last year. By month, in days: ${monthsInWords(byDay) || 'nothing yet'}.`}>
        <div className="heatmap-grid">
          {weeks.map((week) => (
            <div className="heatmap-week" key={week[0]}>
              {week.map((day) => {
                const w = byDay.get(day)
                const span = w && addDays(w.end, -1) !== w.start ? ` (${w.start} to ${addDays(w.end, -1)}, ${w.completions} done)` : ''
                return (
                  <span key={day} className={`cell${day > today ? ' future' : ''}`} data-day={day} data-status={w?.status}
                    title={w ? `${day}: ${STATUS_TEXT[w.status]}${span}` : day} />
                )
              })}
            </div>
          ))}
        </div>
      </div>
      <ul className="heatmap-legend" aria-hidden="true">
        {LEGEND.map((s) => <li key={s}><span className="cell" data-status={s} /> {LEGEND_TEXT[s]}</li>)}
      </ul>
    </figure>
  )
}
