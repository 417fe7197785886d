/** Small building blocks shared by the screens. */
import { useId, useState, type ButtonHTMLAttributes, type ReactNode } from 'react'
import { ApiError } from '../api/client'

export function Bar({ label, value, max, kind }: { label: string; value: number; max: number; kind: 'health' | 'mana' | 'xp' | 'boss' }) {
  const pct = max > 0 ? Math.max(0, Math.min(100, (value / max) * 100)) : 0
  return (
    <div className={`bar bar-${kind}`}>
      <div className="bar-label">
        <span>{label}</span>
        <span className="num">{value} / {max}</span>
      </div>
      <div className="bar-track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value}>
        <div className="bar-fill" style={{ width: `${pct}%` }} />
      </div>
    </div>
  )
}

/** A labelled input with its field message underneath (from a problem's `errors`). */
export function Field({ label, error, hint, children }: { label: string; error?: string | undefined; hint?: string; children: (id: string, describedBy: string | undefined) => ReactNode }) {
  const id = useId()
  const msgId = `${id}-msg`
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(id, error || hint ? msgId : undefined)}
      {error ? <p className="field-error" id={msgId} role="alert">{error}</p> : hint ? <p className="field-hint" id={msgId}>{hint}</p> : null}
    </div>
  )
}

/** A button that shows it is working and cannot be pressed twice meanwhile. */
export function Action({ onAction, children, className, ...rest }: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick'> & { onAction: () => Promise<unknown> | void }) {
  const [busy, setBusy] = useState(false)
  return (
    <button
      type="button"
      {...rest}
      className={className}
      disabled={busy || rest.disabled}
      aria-busy={busy || undefined}
      onClick={async () => {
        setBusy(true)
        try {
          await onAction()
        } finally {
          setBusy(false)
        }
      }}
    >
      {children}
    </button>
  )
}

export function Notice({ kind = 'info', children }: { kind?: 'info' | 'error' | 'success' | 'warn'; children: ReactNode }) {
  return <div className={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>{children}</div>
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null
  return <Notice kind="error">{messageOf(error)}</Notice>
}

export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof TypeError) return 'The server cannot be reached. Check your connection and try again.'
  return (error as Error)?.message ?? String(error)
}

export function Loading({ what }: { what: string }) {
  return <p className="loading" role="status">Loading {what}…</p>
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>
}

export function Section({ title, actions, children, id }: { title: string; actions?: ReactNode; children: ReactNode; id?: string }) {
  const headingId = useId()
  return (
    <section className="card" aria-labelledby={headingId} id={id}>
      <div className="card-head">
        <h2 id={headingId}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  )
}
