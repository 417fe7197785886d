/**
 * The player's data (DESIGN §9.4): a habit's statistics, the weekly or monthly report, the
 * export and imports, the calendar link, webhooks and the account's deletion.
 */
import { api, completed, dataOf } from './client'
import type {
  CalendarLink, HabitStats, Imported, LoopCsvPair, Report, ReportPeriod, Webhook, WebhookCreated, WebhookDeliveries, WebhookEvent,
} from './types'

/** Deliveries listed per endpoint. */
const DELIVERIES_SHOWN = 50
const byId = (id: string) => ({ params: { path: { id } } })

// ---- stats and reports ----

export const habitStats = (habitId: string): Promise<HabitStats> => dataOf(api.GET('/api/v1/habits/{id}/stats', byId(habitId)))
export const avatarReport = (avatarId: string, period: ReportPeriod): Promise<Report> =>
  dataOf(api.GET('/api/v1/avatars/{id}/report', { params: { path: { id: avatarId }, query: { period } } }))

// ---- export and import ----

/** Everything the account holds, as one JSON document, and the name the server gives its file. */
export async function exportAccount(): Promise<{ document: unknown; fileName: string | undefined }> {
  const { data, response } = await api.GET('/api/v1/me/export')
  return { document: data, fileName: fileNameOf(response.headers.get('content-disposition')) }
}

/** `attachment; filename="questline-2026-11-25.json"` → `questline-2026-11-25.json`. */
function fileNameOf(disposition: string | null): string | undefined {
  const m = disposition?.match(/filename="?([^";]+)"?/i)
  return m?.[1]
}

/** Our own export (its parsed JSON), into this avatar: the habits and their history, with new ids. */
export const importExport = (avatarId: string, document: unknown): Promise<Imported> =>
  dataOf(api.POST('/api/v1/avatars/{id}/import', { ...byId(avatarId), body: document }))

/** A Loop Habit Tracker export as the app writes it: a zip, sent as it is. */
export const importLoopZip = (avatarId: string, zip: Blob): Promise<Imported> =>
  dataOf(api.POST('/api/v1/avatars/{id}/import', {
    params: { path: { id: avatarId }, query: { format: 'loop' } },
    body: zip,
    headers: { 'content-type': 'application/zip' },
    bodySerializer: (file: unknown) => file as Blob,
  }))

/** A Loop Habit Tracker export as its Habits.csv and Checkmarks.csv, their text. */
export const importLoopCsv = (avatarId: string, pair: LoopCsvPair): Promise<Imported> =>
  dataOf(api.POST('/api/v1/avatars/{id}/import', { params: { path: { id: avatarId }, query: { format: 'loop' } }, body: pair }))

// ---- calendar ----

/** A new secret address of the habits' calendar; the one before stops working. */
export const newCalendarLink = (): Promise<CalendarLink['url']> => dataOf(api.POST('/api/v1/me/calendar')).then((r) => r.url)
export const stopCalendarLink = () => completed(api.DELETE('/api/v1/me/calendar'))

// ---- webhooks ----

export const listWebhooks = (): Promise<Webhook[]> => dataOf(api.GET('/api/v1/me/webhooks')).then((r) => r.items)
export const addWebhook = (url: string, events: WebhookEvent[]): Promise<WebhookCreated> => dataOf(api.POST('/api/v1/me/webhooks', { body: { url, events } }))
export const deleteWebhook = (id: string) => completed(api.DELETE('/api/v1/me/webhooks/{id}', byId(id)))
export const enableWebhook = (id: string): Promise<Webhook> => dataOf(api.POST('/api/v1/me/webhooks/{id}/enable', byId(id)))
export const webhookDeliveries = (id: string): Promise<WebhookDeliveries> =>
  dataOf(api.GET('/api/v1/me/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: DELIVERIES_SHOWN } } }))
export const redeliver = (endpointId: string, deliveryId: string) =>
  completed(api.POST('/api/v1/me/webhooks/{id}/deliveries/{did}/redeliver', { params: { path: { id: endpointId, did: deliveryId } } }))

// ---- the account ----

/** Deletes the account, its avatars and everything they hold; its sessions end. */
export const deleteAccount = (password: string) => completed(api.DELETE('/api/v1/me', { body: { password } }))
