/**
 * The League screen (DESIGN §9.5): two players who both complete a habit this week share a
 * division; each sees both ranked by score, its own row marked, the lines' words and the time left.
 * A player who plays the new week before the last is closed is told it waits, then sees its new
 * division and last week's result as soon as the season-end job has run.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { LEAGUE_CLOSE_JOB } from '../../src/contexts/avatar/index.js'
import { ManualClock } from '../../src/platform/clock.js'
import { api, open, registerInUi, screenshots, startWorld, type Signed, type WebWorld } from './support/browser.js'

/** The first Monday 00:00 UTC after `t`, plus `minutes`. */
function nextMonday(t: Date, minutes = 0): Date {
  const monday = new Date(t)
  monday.setUTCHours(0, 0, 0, 0)
  monday.setUTCDate(monday.getUTCDate() + ((8 - monday.getUTCDay()) % 7 || 7))
  return new Date(monday.getTime() + minutes * 60_000)
}

// The server's clock: this week's last ten minutes (Sunday 23:50 UTC), so that the second test steps into the next
// week's first minutes on tokens still valid. The page keeps the browser's time; the League screen only shows the
// server's season.
const clock = new ManualClock(nextMonday(new Date(), -10))
let world: WebWorld
beforeAll(async () => {
  world = await startWorld({}, { clock })
})
afterAll(() => world?.close())

/** Completes `times` daily habits on the server's today through the API: 10 experience each, from play. */
async function play(me: Signed, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const habit = await (await api(world, me.token, 'POST', '/api/v1/habits', { avatarId: me.userId, title: `Habit ${i}`, recurrenceType: 'DAILY' })).json() as { id: string }
    const res = await api(world, me.token, 'POST', `/api/v1/habits/${habit.id}/attend`, { date: clock.now().toISOString().slice(0, 19) })
    expect(res.status).toBe(204)
  }
}

test('two players who scored this week see each other ranked in their division, each marked as themselves', async () => {
  const leaderPage = await world.player()
  const leader = await registerInUi(leaderPage, 'Leonie')
  const page = await world.player()
  const me = await registerInUi(page, 'Marek')

  // Before any play this week: no division yet, said in words.
  await open(page, 'League')
  await page.getByText("Complete a habit to enter this week's league.").waitFor()
  expect(await page.getByTestId('league-time-left').textContent()).toMatch(/^\d{4}-W\d{2}: .* left$/)

  await play(leader, 2)
  await play(me, 1)
  const table = page.getByRole('table')
  await expect.poll(() => table.locator('tbody tr:not(.league-line)').allTextContents(), { timeout: 20_000 }).toEqual([
    expect.stringMatching(/^#1Leonie20 XP$/), expect.stringMatching(/^#2Marek \(you\)10 XP$/),
  ])
  expect(await table.locator('tr[aria-current="true"]').textContent()).toContain('Marek (you)')
  expect(await table.locator('caption').textContent()).toBe('Your division: the top 7 go up, nobody goes down.')
  await page.getByText('You are #2 of 2 with 10 XP this week.').waitFor()
  await page.getByRole('heading', { name: 'Bronze league' }).waitFor()
  await screenshots(page, 'league')

  // The other player sees the same division from its side.
  await open(leaderPage, 'League')
  await expect.poll(() => leaderPage.getByRole('table').locator('tr[aria-current="true"]').textContent()).toContain('Leonie (you)')
  await leaderPage.getByText('No finished weeks yet.').waitFor()
})

test('a player who plays the new week before the last is closed is told it waits, then sees its division and last week', async () => {
  const page = await world.player()
  const me = await registerInUi(page, 'Wanda')
  // A minute after Marek: with as much experience, who got there first ranks first.
  clock.advance(60_000)
  await play(me, 1)
  // Its experience scores in the week it is credited: this one.
  await world.app.settle()
  // Five minutes into the next week (Monday 00:05 UTC), before the season-end job has closed the last.
  clock.set(nextMonday(clock.now(), 5))
  await play(me, 1)
  await world.app.settle()

  await open(page, 'League')
  await page.getByText("Last week is being closed: you enter this week's league in a few minutes, with what you have scored.").waitFor()
  await page.getByRole('heading', { name: 'Bronze league' }).waitFor()
  await screenshots(page, 'league-waiting')

  // Three played last week's division (Leonie 20, Marek 10, Wanda 10 after him): all three go up.
  await world.app.runJob(LEAGUE_CLOSE_JOB)
  await world.app.settle()
  // The result reaches the open page (LeagueResult): the new tier's division and last week's line, without a reload.
  await page.getByRole('heading', { name: 'Silver league' }).waitFor()
  await expect.poll(() => page.getByRole('table').locator('tbody tr:not(.league-line)').allTextContents()).toEqual([expect.stringMatching(/^#1Wanda \(you\)10 XP$/)])
  const past = page.getByRole('list', { name: 'Past weeks' }).getByRole('listitem')
  await expect.poll(() => past.allTextContents()).toEqual([expect.stringMatching(/^\d{4}-W\d{2}: Bronze, #3 with 10 XPPromoted, \+20 gold$/)])
})
