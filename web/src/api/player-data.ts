/**
 * The player's data (DESIGN §9.4): a habit's statistics, the weekly or monthly report, the
 * export and imports, the calendar link, webhooks and the account's deletion.
 */
import { del, get, post, request } from './client'
import type {
  CalendarLink, HabitStats, Imported, LoopCsvPair, Report, ReportPeriod, Webhook, WebhookCreated, WebhookDeliveries, WebhookEvent,
} from './types'

const e = encodeURIComponent

// ---- stats and reports ----

export const habitStats = (habitId: string) => get<HabitStats>(`/api/v1/habits/${e(habitId)}/stats`)
export const avatarReport = (avatarId: string, period: ReportPeriod) =>
  get<Report>(`/api/v1/avatars/${e(avatarId)}/report?period=${period}`)

// ---- export and import ----

/** Everything the account holds, as one JSON document, and the name the server gives its file. */
export async function exportAccount(): Promise<{ document: unknown; fileName: string | undefined }> {
  const a = await request<unknown>('GET', '/api/v1/me/export')
  return { document: a.data, fileName: fileNameOf(a.headers.get('content-disposition')) }
}

/** `attachment; filename="questline-2026-11-25.json"` → `questline-2026-11-25.json`. */
function fileNameOf(disposition: string | null): string | undefined {
  const m = disposition?.match(/filename="?([^";]+)"?/i)
  return m?.[1]
}

/** Our own export (its parsed JSON), into this avatar: the habits and their history, with new ids. */
export const importExport = (avatarId: string, document: unknown) =>
  post<Imported>(`/api/v1/avatars/${e(avatarId)}/import`, document)

/** A Loop Habit Tracker export as the app writes it: a zip, sent as it is. */
export const importLoopZip = (avatarId: string, zip: Blob) =>
  request<Imported>('POST', `/api/v1/avatars/${e(avatarId)}/import?format=loop`, { body: new Blob([zip], { type: 'application/zip' }) }).then((a) => a.data)

/** A Loop Habit Tracker export as its Habits.csv and Checkmarks.csv, their text. */
export const importLoopCsv = (avatarId: string, pair: LoopCsvPair) =>
  post<Imported>(`/api/v1/avatars/${e(avatarId)}/import?format=loop`, pair)

// ---- calendar ----

/** A new secret address of the habits' calendar; the one before stops working. */
export const newCalendarLink = () => post<CalendarLink>('/api/v1/me/calendar').then((r) => r.url)
export const stopCalendarLink = () => del('/api/v1/me/calendar')

// ---- webhooks ----

const webhooks = '/api/v1/me/webhooks'
export const listWebhooks = () => get<{ items: Webhook[] }>(webhooks).then((r) => r.items)
export const addWebhook = (url: string, events: WebhookEvent[]) => post<WebhookCreated>(webhooks, { url, events })
export const deleteWebhook = (id: string) => del(`${webhooks}/${e(id)}`)
export const enableWebhook = (id: string) => post<Webhook>(`${webhooks}/${e(id)}/enable`)
export const webhookDeliveries = (id: string) => get<WebhookDeliveries>(`${webhooks}/${e(id)}/deliveries?limit=50`)
export const redeliver = (endpointId: string, deliveryId: string) =>
  post(`${webhooks}/${e(endpointId)}/deliveries/${e(deliveryId)}/redeliver`)

// ---- the account ----

/** Deletes the account, its avatars and everything they hold; its sessions end. */
export const deleteAccount = (password: string) => del('/api/v1/me', { password })
