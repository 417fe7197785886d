/**
 * Webhooks on the Settings screen (DESIGN §9.4): endpoints that receive the account's events,
 * signed with a secret shown once; each with its delivery log, a redelivery, and enabling again
 * an endpoint the platform disabled after a day of failures.
 */
import { useState, type FormEvent } from 'react'
import { addWebhook, deleteWebhook, enableWebhook, listWebhooks, redeliver, webhookDeliveries } from '../api/player-data'
import { WEBHOOK_EVENTS, type Webhook, type WebhookCreated, type WebhookDelivery, type WebhookEvent } from '../api/types'
import { useGame } from '../game'
import { useLoad, useSubmit } from '../ui/hooks'
import { Action, Empty, ErrorNotice, Field, Loading, Notice, Section, messageOf } from '../ui/parts'
import { CopyButton } from '../ui/CopyButton'

export function WebhooksSection() {
  const hooks = useLoad(listWebhooks, [])
  const [created, setCreated] = useState<WebhookCreated>()
  return (
    <Section title="Webhooks">
      <p className="muted">Your server receives your events as they happen: a signed POST to its address for each event of the types you choose.</p>
      {hooks.error && <ErrorNotice error={hooks.error} />}
      {!hooks.data && !hooks.error && <Loading what="webhooks" />}
      {hooks.data?.length === 0 && <Empty>No webhooks yet.</Empty>}
      <ul className="rows" aria-label="Your webhooks">
        {hooks.data?.map((w) => (
          <WebhookItem key={w.id} hook={w} onChanged={hooks.reload} onDeleted={() => hooks.set((l) => l?.filter((x) => x.id !== w.id))} />
        ))}
      </ul>
      {created && <SecretOnce hook={created} onDone={() => setCreated(undefined)} />}
      <AddWebhookForm onAdded={async (w) => {
        setCreated(w)
        await hooks.reload()
      }} />
    </Section>
  )
}

/** The new endpoint's secret, which the platform never shows again. */
function SecretOnce({ hook, onDone }: { hook: WebhookCreated; onDone: () => void }) {
  return (
    <div className="notice notice-warn secret" role="status">
      <p><strong>Copy this secret now: it is shown only once.</strong> Your server verifies each delivery with it and a Standard Webhooks library (npm's <code>standardwebhooks</code>: <code>new Webhook(secret).verify(body, headers)</code>).</p>
      <p className="row">
        <code className="wrap" data-testid="webhook-secret">{hook.secret}</code>
        <CopyButton text={hook.secret} what="Secret" />
      </p>
      <button type="button" className="small" onClick={onDone}>I have saved it</button>
    </div>
  )
}

function AddWebhookForm({ onAdded }: { onAdded: (w: WebhookCreated) => Promise<void> }) {
  const [url, setUrl] = useState('')
  const [events, setEvents] = useState<WebhookEvent[]>([])
  const { busy, error, fields, submit: run } = useSubmit()
  const toggle = (t: WebhookEvent) => setEvents((l) => (l.includes(t) ? l.filter((x) => x !== t) : WEBHOOK_EVENTS.filter((x) => x === t || l.includes(x))))

  const submit = (e: FormEvent) => run(e, async () => {
    const w = await addWebhook(url.trim(), events)
    setUrl('')
    setEvents([])
    await onAdded(w)
  }, {
    // Problems about a chosen type (events.0) belong to the whole list.
    fields: (err) => {
      const eventError = Object.entries(err.fields).find(([k]) => k.startsWith('events'))
      return { ...err.fields, ...(eventError ? { events: eventError[1] } : {}) }
    },
  })

  return (
    <form className="webhook-form" onSubmit={submit} noValidate>
      <h3>Add a webhook</h3>
      <Field label="Address (URL)" error={fields.url}>
        {(id, d) => <input id={id} type="url" inputMode="url" aria-describedby={d} aria-invalid={!!fields.url} value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/questline" />}
      </Field>
      <fieldset aria-describedby={fields.events ? 'webhook-events-error' : undefined}>
        <legend>Events</legend>
        <div className="event-choices">
          {WEBHOOK_EVENTS.map((t) => (
            <label key={t} className="check-label">
              <input type="checkbox" checked={events.includes(t)} onChange={() => toggle(t)} /> {t}
            </label>
          ))}
        </div>
        {fields.events && <p className="field-error" id="webhook-events-error" role="alert">{fields.events}</p>}
      </fieldset>
      {error && <Notice kind="error">{error}</Notice>}
      <div className="row">
        <button className="primary" type="submit" disabled={busy} aria-busy={busy || undefined}>Add webhook</button>
      </div>
    </form>
  )
}

function WebhookItem({ hook: w, onChanged, onDeleted }: { hook: Webhook; onChanged: () => Promise<void>; onDeleted: () => void }) {
  const game = useGame()
  const [showLog, setShowLog] = useState(false)
  const act = (f: () => Promise<void>) => async () => {
    try {
      await f()
    } catch (e) {
      game.announce('error', messageOf(e))
    }
  }
  const remove = act(async () => {
    if (!window.confirm(`Delete the webhook to ${w.url}? Its deliveries stop.`)) return
    await deleteWebhook(w.id)
    game.announce('info', 'Webhook deleted.')
    onDeleted()
  })
  const enable = act(async () => {
    await enableWebhook(w.id)
    game.announce('info', 'Webhook enabled: deliveries resume.')
    await onChanged()
  })

  return (
    <li className="row-item webhook" data-testid="webhook">
      <span className="grow webhook-main">
        <span className="ellipsis webhook-url" title={w.url}>{w.url}</span>
        <span className="tags">{w.events.map((t) => <span key={t} className="tag">{t}</span>)}</span>
      </span>
      {!w.enabled && <span className="pill danger-pill" title="Every delivery failed for a day">Disabled</span>}
      {w.enabled && w.failingSince && <span className="pill warn-text" title={`Every delivery has failed since ${new Date(w.failingSince).toLocaleString()}`}>Failing</span>}
      <span className="row">
        {!w.enabled && <Action className="small" onAction={enable}>Enable<span className="visually-hidden"> webhook to {w.url}</span></Action>}
        <button type="button" className="small" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
          Deliveries<span className="visually-hidden"> of the webhook to {w.url}</span>
        </button>
        <Action className="small danger" onAction={remove}>Delete<span className="visually-hidden"> webhook to {w.url}</span></Action>
      </span>
      {showLog && <DeliveryLog endpointId={w.id} />}
    </li>
  )
}

const STATUS_TEXT: Record<WebhookDelivery['status'], string> = { PENDING: 'Pending', DELIVERED: 'Delivered', FAILED: 'Failed' }

function DeliveryLog({ endpointId }: { endpointId: string }) {
  const game = useGame()
  const log = useLoad(() => webhookDeliveries(endpointId), [endpointId])
  const again = async (d: WebhookDelivery) => {
    try {
      await redeliver(endpointId, d.id)
      game.announce('info', `${d.type} will be delivered again.`)
      await log.reload()
    } catch (e) {
      game.announce('error', messageOf(e))
    }
  }
  if (log.error) return <ErrorNotice error={log.error} />
  if (!log.data) return <Loading what="deliveries" />
  if (log.data.items.length === 0) return <Empty>Nothing delivered yet.</Empty>
  return (
    <ul className="rows deliveries" aria-label="Deliveries">
      {log.data.items.map((d) => (
        <li key={d.id} className="row-item">
          <span className="grow ellipsis">{d.type}</span>
          <span className={`pill delivery-${d.status.toLowerCase()}`} title={d.lastError ?? undefined}>{STATUS_TEXT[d.status]}</span>
          <span className="muted small-text num">
            {d.attempts} attempt{d.attempts === 1 ? '' : 's'}{d.lastStatusCode !== null ? `, last ${d.lastStatusCode}` : ''}
            {d.status === 'PENDING' && d.nextAttemptAt ? `, next ${new Date(d.nextAttemptAt).toLocaleTimeString()}` : ''}
          </span>
          <Action className="small" onAction={() => again(d)}>Redeliver<span className="visually-hidden"> {d.type}</span></Action>
        </li>
      ))}
    </ul>
  )
}
