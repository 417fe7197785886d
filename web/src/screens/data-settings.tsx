/**
 * "Your data" on the Settings screen (DESIGN §9.4): download everything as JSON, import our export
 * or Loop Habit Tracker's into this avatar, a calendar link, webhooks (webhook-settings.tsx) and
 * the account's deletion.
 */
import { useRef, useState, type FormEvent } from 'react'
import { ApiError, endSession } from '../api/client'
import { deleteAccount, exportAccount, importExport, importLoopCsv, importLoopZip, newCalendarLink, stopCalendarLink } from '../api/player-data'
import type { Imported } from '../api/types'
import { useGame } from '../game'
import { Link, navigate } from '../router'
import { useSubmit } from '../ui/hooks'
import { Action, Field, Notice, Section, messageOf } from '../ui/parts'
import { WebhooksSection } from './webhook-settings'
import { CopyButton } from '../ui/CopyButton'

export function YourData() {
  return (
    <>
      <h2 className="group-heading">Your data</h2>
      <ExportSection />
      <ImportSection />
      <CalendarSection />
      <WebhooksSection />
      <DeleteAccountSection />
    </>
  )
}

/** Offers `content` as a file named `fileName`, as a link the browser downloads. */
function download(content: Blob, fileName: string): void {
  const url = URL.createObjectURL(content)
  const a = document.createElement('a')
  a.href = url
  a.download = fileName
  document.body.append(a)
  a.click()
  a.remove()
  // The click has handed the file to the browser; the address is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0)
}

function ExportSection() {
  const game = useGame()
  const save = async () => {
    try {
      const { document: exported, fileName } = await exportAccount()
      download(new Blob([JSON.stringify(exported, null, 2)], { type: 'application/json' }), fileName ?? 'questline-export.json')
      game.announce('info', 'Your data was downloaded.')
    } catch (e) {
      game.announce('error', messageOf(e))
    }
  }
  return (
    <Section title="Export">
      <p className="muted">Everything your account holds, in one JSON file: your heroes, their habits and history, quests, guild, trades and notifications.</p>
      <div className="row">
        <Action className="primary" onAction={save}>Download my data</Action>
      </div>
    </Section>
  )
}

/** A refusal of an import: its sentence and where in the file each problem lies (a field, a line). */
interface ImportProblem {
  message: string
  where: [string, string][]
}

function problemOf(err: unknown): ImportProblem {
  if (!(err instanceof ApiError)) return { message: messageOf(err), where: [] }
  // A document of the wrong shape is refused field by field; a file that cannot be read says where in its own sentence.
  const message = err.slug === 'validation' ? 'This file is not a Questline export this version can read:' : err.detail ?? err.message
  return { message, where: Object.entries(err.fields) }
}

function ImportSection() {
  const game = useGame()
  const input = useRef<HTMLInputElement>(null)
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<ImportProblem>()
  const [summary, setSummary] = useState<Imported>()

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const files = [...(input.current?.files ?? [])]
    setProblem(undefined)
    setSummary(undefined)
    if (files.length === 0) return setProblem({ message: 'Choose a file to import first.', where: [] })
    setBusy(true)
    try {
      setSummary(await importFiles(game.avatarId, files))
      if (input.current) input.current.value = ''
    } catch (err) {
      setProblem(problemOf(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Section title="Import habits">
      <form onSubmit={submit} noValidate>
        <Field label="Export file" hint="A Questline export (.json), or a Loop Habit Tracker export: its .zip, or its Habits.csv and Checkmarks.csv together. The habits and their history are added to this hero, without rewards.">
          {(id, d) => <input id={id} ref={input} type="file" aria-describedby={d} accept=".json,.zip,.csv,application/json,application/zip,text/csv" multiple />}
        </Field>
        {problem && (
          <div className="notice notice-error" role="alert" data-testid="import-problem">
            <p>{problem.message}</p>
            {problem.where.length > 0 && (
              <ul className="problem-list">
                {problem.where.map(([where, message]) => <li key={where}><code>{where || 'file'}</code>: {message}</li>)}
              </ul>
            )}
          </div>
        )}
        {summary && (
          <Notice kind="success">
            <span data-testid="import-summary">{summaryText(summary)}</span> <Link to="/habits">See them on Habits</Link>
          </Notice>
        )}
        <div className="row">
          <button className="primary" type="submit" disabled={busy} aria-busy={busy || undefined}>Import</button>
        </div>
      </form>
    </Section>
  )
}

/** Our export (one .json), or Loop Habit Tracker's: its .zip, or its Habits.csv and Checkmarks.csv. */
async function importFiles(avatarId: string, files: File[]): Promise<Imported> {
  const named = (pattern: RegExp) => files.find((f) => pattern.test(f.name))
  const zip = named(/\.zip$/i)
  if (zip) return importLoopZip(avatarId, zip)
  if (named(/\.csv$/i)) {
    const habits = named(/(^|\/)habits\.csv$/i)
    const checkmarks = named(/(^|\/)checkmarks\.csv$/i)
    if (!habits || !checkmarks) throw new Error('A Loop Habit Tracker export needs both Habits.csv and Checkmarks.csv: choose the two files together, or its zip.')
    return importLoopCsv(avatarId, { habits: await habits.text(), checkmarks: await checkmarks.text() })
  }
  const file = files[0]!
  let exported: unknown
  try {
    exported = JSON.parse(await file.text())
  } catch (e) {
    throw new Error(`${file.name} is not a JSON document (${(e as Error).message}).`)
  }
  return importExport(avatarId, exported)
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`
const summaryText = (r: Imported) => {
  const made = `Imported ${plural(r.habitIds.length, 'habit')} with ${r.habitIds.length === 1 ? 'its' : 'their'} history.`
  if (r.existing.length === 0) return made
  return `${made} Already there, so left as ${r.existing.length === 1 ? 'it was' : 'they were'}: ${r.existing.map((h) => h.title).join(', ')}.`
}

function CalendarSection() {
  const game = useGame()
  const [url, setUrl] = useState<string>()
  const link = async () => {
    try {
      setUrl(await newCalendarLink())
    } catch (e) {
      game.announce('error', messageOf(e))
    }
  }
  const stop = async () => {
    try {
      await stopCalendarLink()
      setUrl(undefined)
      game.announce('info', 'Calendar link stopped: it no longer shows your habits.')
    } catch (e) {
      game.announce('error', messageOf(e))
    }
  }
  return (
    <Section title="Calendar">
      <p className="muted">Subscribe to your habits in a calendar app: one repeating event per habit, without vacations and rest days.</p>
      {url && (
        <>
          <Field label="Calendar link" hint="Anyone with this link sees your habits' schedule: keep it private.">
            {(id, d) => <input id={id} aria-describedby={d} value={url} readOnly onFocus={(e) => e.target.select()} data-testid="calendar-url" />}
          </Field>
          <div className="row"><CopyButton text={url} what="Calendar link" /></div>
        </>
      )}
      <Notice kind="warn">Getting a new link stops the one before: calendars subscribed to it stop updating.</Notice>
      <div className="row">
        <Action className="primary" onAction={link}>{url ? 'Get a new calendar link' : 'Get calendar link'}</Action>
        <Action className="danger" onAction={stop}>Stop calendar link</Action>
      </div>
    </Section>
  )
}

const wrongPassword = (err: unknown) => err instanceof ApiError && err.slug === 'invalid-credentials'

function DeleteAccountSection() {
  const [password, setPassword] = useState('')
  const { busy, error, fields, submit: run } = useSubmit()

  const submit = (e: FormEvent) => run(e, async () => {
    if (!window.confirm('Delete your account, your heroes and everything they hold? This cannot be undone.')) return
    await deleteAccount(password)
    endSession('Your account has been deleted.')
    navigate('/login', true)
  }, {
    // The server answers a wrong password as a failed login: said next to the field, and only there.
    fields: (err) => (wrongPassword(err) ? { password: 'That is not your password.' } : err.fields),
    message: (err) => (wrongPassword(err) ? '' : messageOf(err)),
  })

  return (
    <Section title="Delete account" id="delete-account">
      <div className="danger-zone">
        <p>Deleting your account deletes your heroes, habits, history, items and messages, and signs you out everywhere. It cannot be undone: download your data first if you want to keep it.</p>
        <form onSubmit={submit} noValidate>
          <Field label="Your password" error={fields.password}>
            {(id, d) => <input id={id} type="password" aria-describedby={d} aria-invalid={!!fields.password} value={password} autoComplete="current-password" onChange={(e) => setPassword(e.target.value)} />}
          </Field>
          {error && <Notice kind="error">{error}</Notice>}
          <div className="row">
            <button className="danger" type="submit" disabled={busy || password === ''} aria-busy={busy || undefined}>Delete my account</button>
          </div>
        </form>
      </div>
    </Section>
  )
}
