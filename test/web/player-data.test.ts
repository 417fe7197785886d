/**
 * The player's data in the browser (DESIGN §9.4): a habit's statistics and the weekly report after
 * a completion; the export downloaded and imported into another hero; and on Settings, a calendar
 * link shown and stopped, a webhook added (its secret shown once), its delivery log and a
 * redelivery, the webhook deleted, and the account deleted, which signs out.
 */
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SEND_WEBHOOKS_JOB } from '../../src/contexts/live/app/webhook-sender.js'
import { api, open, registerInUi, screenshots, startWorld, type WebWorld } from './support/browser.js'

let world: WebWorld
beforeAll(async () => {
  world = await startWorld({ WEBHOOK_ALLOW_PRIVATE: 'true' })
})
afterAll(() => world?.close())

const PASSWORD = 'correct horse battery'

/** Bodies a local webhook receiver got (WEBHOOK_ALLOW_PRIVATE lets the platform call it). */
const received: string[] = []
let receiving: Server | undefined
afterAll(() => receiving?.close())

/** Starts the receiver (answering 200); its URL. */
async function receiver(): Promise<string> {
  receiving = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk))
    req.on('end', () => {
      received.push(body)
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => receiving!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(receiving.address() as AddressInfo).port}/questline`
}

test('after a completion, the weekly report on Today and the habit\'s statistics show it', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Counter')
  await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: 'Run', recurrenceType: 'DAILY' })
  await page.reload()

  const report = page.getByRole('region', { name: 'This week' })
  const runBar = report.getByRole('progressbar', { name: 'Run' })
  // The window under way is not due in the report until it is done.
  await expect.poll(() => runBar.getAttribute('aria-valuemax')).toBe('0')
  await page.getByRole('button', { name: 'Complete Run' }).click()
  await page.getByRole('status').filter({ hasText: 'Run done: +10 XP' }).waitFor()
  // The report reads again as the completion and its reward arrive.
  await expect.poll(() => runBar.getAttribute('aria-valuenow')).toBe('1')
  expect(await runBar.getAttribute('aria-valuemax')).toBe('1')
  await expect.poll(() => report.getByTestId('report-experience').textContent()).toBe('+10 XP')
  await screenshots(page, 'today-report')

  await report.getByText('Month', { exact: true }).click()
  await page.getByRole('region', { name: 'This month' }).getByRole('progressbar', { name: 'Run' }).waitFor()

  await open(page, 'Habits')
  await page.getByRole('button', { name: 'History of Run' }).click()
  const stats = page.getByTestId('habit-stats')
  await expect.poll(() => stats.getByTestId('rate-days7').textContent()).toBe('100%')
  expect(await stats.getByTestId('current-streak').textContent()).toBe('1')
  expect(await stats.getByTestId('best-streak').textContent()).toBe('1')
  expect(await stats.getByTestId('total-completions').textContent()).toBe('1')
  expect(await stats.getByTestId('strength').textContent()).toBe('100')
  await stats.getByRole('img', { name: 'Strength of Run: 100 of 100' }).waitFor()
  await screenshots(page, 'habit-stats')
  await page.context().close()
})

test('the export downloads as a JSON document, and importing it gives another hero the habits', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Exporter')
  const habit = await (await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: 'Meditate', recurrenceType: 'DAILY' })).json() as { id: string }
  // The avatar's zone is UTC: now there, as a local date-time.
  await api(world, me.token, 'POST', `/api/v1/habits/${habit.id}/attend`, { date: new Date().toISOString().slice(0, 19) })

  await open(page, 'Settings')
  const downloading = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download my data' }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toMatch(/^questline-export-\d{4}-\d{2}-\d{2}\.json$/)
  const text = await readFile(await download.path(), 'utf8')
  const exported = JSON.parse(text)
  expect(exported).toMatchObject({ format: 'questline-export', version: 1, user: { email: me.email } })
  expect(exported.avatars[0].habits.map((h: { habit: { title: string } }) => h.habit.title)).toEqual(['Meditate'])
  await page.context().close()

  const other = await world.player()
  await registerInUi(other, 'Importer')
  await open(other, 'Settings')
  // A document that is not an export is refused, naming where.
  await other.getByLabel('Export file').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ ...exported, format: 'other' })) })
  await other.getByRole('button', { name: 'Import', exact: true }).click()
  await other.getByTestId('import-problem').getByRole('listitem').filter({ hasText: /^format: / }).waitFor()

  await other.getByLabel('Export file').setInputFiles({ name: download.suggestedFilename(), mimeType: 'application/json', buffer: Buffer.from(text) })
  await other.getByRole('button', { name: 'Import', exact: true }).click()
  await expect.poll(() => other.getByTestId('import-summary').textContent()).toBe('Imported 1 habit with its history.')
  await screenshots(other, 'settings-your-data')
  await open(other, 'Habits')
  await other.getByRole('list', { name: 'Your habits' }).locator('.habit-title', { hasText: 'Meditate' }).waitFor()
  // With its history: the completion came along.
  await other.getByRole('button', { name: 'History of Meditate' }).click()
  await expect.poll(() => other.getByTestId('total-completions').textContent()).toBe('1')
  await other.context().close()
})

test('settings: a calendar link shown and stopped, a webhook added (its secret once), its delivery redelivered, the webhook and the account deleted', async () => {
  const page = await world.player()
  page.on('dialog', (d) => void d.accept())
  const me = await registerInUi(page, 'Leaver')
  await open(page, 'Settings')

  // Calendar: the link serves the habits' calendar until it is stopped.
  await page.getByRole('button', { name: 'Get calendar link' }).click()
  const url = await page.getByLabel('Calendar link').inputValue()
  expect((await fetch(url)).status).toBe(200)
  await page.getByRole('button', { name: 'Stop calendar link' }).click()
  await page.getByRole('status').filter({ hasText: 'Calendar link stopped' }).waitFor()
  expect(await page.getByLabel('Calendar link').count()).toBe(0)
  expect((await fetch(url)).status).toBe(404)

  // Webhook: its secret is shown once, at its making.
  const hookUrl = await receiver()
  await page.getByLabel('Address (URL)').fill(hookUrl)
  await page.getByRole('checkbox', { name: 'HabitAttended' }).check()
  await page.getByRole('button', { name: 'Add webhook' }).click()
  const secret = await page.getByTestId('webhook-secret').textContent()
  expect(secret?.length).toBeGreaterThan(10)
  const hooks = page.getByRole('list', { name: 'Your webhooks' })
  await hooks.getByText(hookUrl, { exact: true }).waitFor()
  await page.getByRole('button', { name: 'I have saved it' }).click()
  expect(await page.getByTestId('webhook-secret').count()).toBe(0)
  await page.reload()
  await hooks.getByText(hookUrl, { exact: true }).waitFor()
  expect(await page.content()).not.toContain(secret)

  // A completion is delivered; its log shows it, and it can be sent again.
  const habit = await (await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: 'Stretch', recurrenceType: 'DAILY' })).json() as { id: string }
  await api(world, me.token, 'POST', `/api/v1/habits/${habit.id}/attend`, { date: new Date().toISOString().slice(0, 19) })
  await world.app.settle()
  await world.app.runJob(SEND_WEBHOOKS_JOB)
  // The process that made the delivery may be sending it already (the job skips a leased one).
  await expect.poll(() => received.length).toBe(1)
  await hooks.getByRole('button', { name: `Deliveries of the webhook to ${hookUrl}` }).click()
  const delivery = hooks.getByRole('list', { name: 'Deliveries' }).getByRole('listitem').filter({ hasText: 'HabitAttended' })
  await delivery.getByText('Delivered', { exact: true }).waitFor()
  await delivery.getByRole('button', { name: 'Redeliver HabitAttended' }).click()
  await page.getByRole('status').filter({ hasText: 'HabitAttended will be delivered again.' }).waitFor()
  await world.app.runJob(SEND_WEBHOOKS_JOB)
  await expect.poll(() => received.length).toBe(2)

  await hooks.getByRole('button', { name: `Delete webhook to ${hookUrl}` }).click()
  await page.getByText('No webhooks yet.').waitFor()

  // Deleting the account asks for the password, then signs out.
  await page.getByLabel('Your password').fill('not my password')
  await page.getByRole('button', { name: 'Delete my account' }).click()
  await page.getByRole('region', { name: 'Delete account' }).getByRole('alert').filter({ hasText: 'That is not your password.' }).waitFor()
  expect(page.url()).toMatch(/\/settings$/) // a wrong password keeps the session
  await page.getByLabel('Your password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Delete my account' }).click()
  await expect.poll(() => page.url()).toMatch(/\/login$/)
  await page.getByText('Your account has been deleted.').waitFor()
  const login = await fetch(`${world.baseUrl}/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: me.email, password: PASSWORD }),
  })
  expect(login.status).toBe(401)
  await page.context().close()
})
