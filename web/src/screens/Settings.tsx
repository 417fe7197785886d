/**
 * The avatar's day settings (DESIGN §9.3): the time zone its habits follow, the hour its days
 * start, and a vacation. A change governs the windows that start after today, which the screen
 * says before anything else.
 */
import { useMemo, useState, type FormEvent } from 'react'
import { ApiError } from '../api/client'
import { changeSettings, getSettings } from '../api/game'
import type { Settings } from '../api/types'
import { addDays, daysBetween } from '../../../src/platform/time/index.js'
import { useGame } from '../game'
import { browserTimeZone, formatDate, playerToday } from '../time'
import { useLoad, useSubmit, type Explain } from '../ui/hooks'
import { ErrorNotice, Field, Loading, Notice, Section, messageOf } from '../ui/parts'
import { ThemeSwitch } from '../ui/ThemeSwitch'
import { YourData } from './data-settings'

/** The longest vacation, both days counted (the server says so too: 400 `invalid-vacation`). */
const VACATION_MAX_DAYS = 90
/** A new vacation's length until the player picks its end. */
const VACATION_DEFAULT_DAYS = 7

/** A refusal as the server words it: its own sentence, and its field messages next to the fields. */
const serverWords: Explain = {
  message: (err) => (err instanceof ApiError && err.detail ? err.detail : messageOf(err)),
  fields: (err) => Object.fromEntries(Object.entries(err.fields).map(([k, v]) => [k.replace(/^vacation\./, ''), v])),
}

const hourLabel = (h: number) => `${String(h).padStart(2, '0')}:00${h === 0 ? ' (midnight)' : ''}`

export function SettingsScreen() {
  const game = useGame()
  const settings = useLoad(() => getSettings(game.avatarId), [game.avatarId])
  const saved = (s: Settings, what: string) => {
    settings.set(() => s)
    game.announce('info', `${what} saved. It applies from tomorrow.`)
  }

  return (
    <div className="screen">
      <h1>Settings</h1>
      <Notice kind="info">
        Changes apply from tomorrow: today keeps the day it began with, so a change never excuses or ends a day already under way.
      </Notice>
      {settings.error && <ErrorNotice error={settings.error} />}
      {!settings.data && !settings.error && <Loading what="your settings" />}
      {settings.data && (
        <>
          <DayForm current={settings.data} onSaved={(s) => saved(s, 'Your day')} />
          <VacationForm key={JSON.stringify(settings.data.vacation)} current={settings.data} onSaved={(s) => saved(s, s.vacation ? 'Vacation' : 'No vacation')} />
        </>
      )}
      <ThemeSwitch />
      <YourData />
    </div>
  )
}

function DayForm({ current, onSaved }: { current: Settings; onSaved: (s: Settings) => void }) {
  const game = useGame()
  const [timeZone, setTimeZone] = useState(current.timeZone)
  const [dayStartHour, setDayStartHour] = useState(current.dayStartHour)
  const { busy, error, fields, submit: run } = useSubmit()
  const device = browserTimeZone()
  const zones = useMemo(() => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []), [])
  const changed = timeZone.trim() !== current.timeZone || dayStartHour !== current.dayStartHour

  const submit = (e: FormEvent) => run(e, async () => {
    onSaved(await changeSettings(game.avatarId, {
      ...(timeZone.trim() !== current.timeZone ? { timeZone: timeZone.trim() } : {}),
      ...(dayStartHour !== current.dayStartHour ? { dayStartHour } : {}),
    }))
  }, serverWords)

  return (
    <Section title="Your day">
      <form onSubmit={submit} noValidate>
        <Field label="Time zone" error={fields.timeZone} hint="Habits without their own zone count their days in this one.">
          {(id, d) => (
            <>
              <input id={id} aria-describedby={d} aria-invalid={!!fields.timeZone} list={`${id}-zones`} value={timeZone}
                autoComplete="off" spellCheck={false} onChange={(e) => setTimeZone(e.target.value)} placeholder="Europe/Paris" />
              <datalist id={`${id}-zones`}>{zones.map((z) => <option key={z} value={z} />)}</datalist>
            </>
          )}
        </Field>
        {device !== timeZone.trim() && (
          <p className="row">
            <button type="button" className="small" onClick={() => setTimeZone(device)}>Use this device's zone: {device}</button>
          </p>
        )}
        <Field label="Day starts at" error={fields.dayStartHour} hint="A day runs from this hour to the same hour next day: with 04:00, a completion at 01:30 counts for the day before.">
          {(id, d) => (
            <select id={id} aria-describedby={d} value={dayStartHour} onChange={(e) => setDayStartHour(Number(e.target.value))}>
              {Array.from({ length: 24 }, (_, h) => <option key={h} value={h}>{hourLabel(h)}</option>)}
            </select>
          )}
        </Field>
        {error && <Notice kind="error">{error}</Notice>}
        <div className="row">
          <button className="primary" type="submit" disabled={busy || !changed} aria-busy={busy || undefined}>Save day settings</button>
        </div>
      </form>
    </Section>
  )
}

function VacationForm({ current, onSaved }: { current: Settings; onSaved: (s: Settings) => void }) {
  const game = useGame()
  const tomorrow = addDays(playerToday(current.timeZone, current.dayStartHour), 1)
  const [on, setOn] = useState(current.vacation !== null)
  const [from, setFrom] = useState(current.vacation?.from ?? tomorrow)
  const [to, setTo] = useState(current.vacation?.to ?? addDays(tomorrow, VACATION_DEFAULT_DAYS - 1))
  const { busy, error, fields, submit: run } = useSubmit()
  const days = from && to && to >= from ? daysBetween(from, to) + 1 : 0

  const submit = (e: FormEvent) => run(e, async () => {
    onSaved(await changeSettings(game.avatarId, { vacation: on ? { from, to } : null }))
  }, serverWords)

  return (
    <Section title="Vacation">
      <form onSubmit={submit} noValidate>
        <label className="check-label switch">
          <input type="checkbox" role="switch" checked={on} onChange={(e) => setOn(e.target.checked)} /> Going on vacation
        </label>
        <p className="field-hint">
          Habits whose windows lie wholly inside it are not due: no damage, and streaks carry over. At most {VACATION_MAX_DAYS} days, both dates included.
        </p>
        {on && (
          <div className="grid-2">
            <Field label="From" error={fields.from}>
              {(id, d) => <input id={id} type="date" aria-describedby={d} aria-invalid={!!fields.from} min={tomorrow} value={from} onChange={(e) => setFrom(e.target.value)} />}
            </Field>
            <Field label="To" error={fields.to} {...(days > 0 ? { hint: `${days} day${days === 1 ? '' : 's'}` } : {})}>
              {(id, d) => (
                <input id={id} type="date" aria-describedby={d} aria-invalid={!!fields.to} min={from} max={from ? addDays(from, VACATION_MAX_DAYS - 1) : undefined}
                  value={to} onChange={(e) => setTo(e.target.value)} />
              )}
            </Field>
          </div>
        )}
        {current.vacation && <p className="muted" data-testid="vacation-saved">Saved: {formatDate(current.vacation.from)} to {formatDate(current.vacation.to)}.</p>}
        {error && <Notice kind="error">{error}</Notice>}
        <div className="row">
          <button className="primary" type="submit" disabled={busy || (!on && current.vacation === null)} aria-busy={busy || undefined}>Save vacation</button>
        </div>
      </form>
    </Section>
  )
}
