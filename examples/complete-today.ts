/**
 * Scripting against the API with @questline/client (the example of docs/api.md, run by
 * test/client-example.test.ts): log in and complete every habit that is due and not done.
 *
 *   QUESTLINE_URL=http://127.0.0.1:8080 QUESTLINE_EMAIL=ada@example.com QUESTLINE_PASSWORD='correct horse' \
 *     npx tsx examples/complete-today.ts
 */
import { pathToFileURL } from 'node:url'
import { createQuestlineClient, ProblemError } from '@questline/client'

/** Completes the avatar's habits due now; answers the titles of those it completed. */
export async function completeToday(baseUrl: string, email: string, password: string, now = new Date()): Promise<string[]> {
  const { data: session } = await createQuestlineClient({ baseUrl }).POST('/auth/login', { body: { email, password } })
  const client = createQuestlineClient({ baseUrl, token: session.token })
  // The account's first avatar has the user's id; a page holds at most 200 habits.
  const { data: habits } = await client.GET('/api/v1/habits', { params: { query: { avatarId: session.userId, limit: 200 } } })
  const completed: string[] = []
  for (const habit of habits.items) {
    // The wall clock in the habit's zone, as the API writes local date-times: 2026-11-25T07:30:00.
    const localNow = now.toLocaleString('sv-SE', { timeZone: habit.timeZone }).replace(' ', 'T')
    if (habit.nextRecurrenceDate > localNow) continue // its window is done
    try {
      await client.POST('/api/v1/habits/{id}/attend', { params: { path: { id: habit.id } }, body: { date: localNow } })
      completed.push(habit.title)
    } catch (e) {
      // A TIMES_PER_WEEK habit counts one completion a day.
      if (!(e instanceof ProblemError && e.type.endsWith('/day-already-completed'))) throw e
    }
  }
  return completed
}

// Run as a script (not when a test imports it).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { QUESTLINE_URL = 'http://127.0.0.1:8080', QUESTLINE_EMAIL = '', QUESTLINE_PASSWORD = '' } = process.env
  const done = await completeToday(QUESTLINE_URL, QUESTLINE_EMAIL, QUESTLINE_PASSWORD)
  console.log(done.length > 0 ? `Completed: ${done.join(', ')}` : 'Nothing due: all done for now.')
}
