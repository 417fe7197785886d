/**
 * A join cut short by a failure between its copies: a retry, or the recovery job, leaves exactly
 * one copy of each quest habit.
 */
import { sql } from 'drizzle-orm'
import { describe, expect, test } from 'vitest'
import { FINISH_JOINS_JOB } from '../src/contexts/quest/index.js'
import { ManualClock } from '../src/platform/clock.js'
import { buildTestApp, callRetries, type TestApp } from './support/app.js'
import { newPlayer, signIn } from './support/players.js'
import { createQuest, habitsOf, join } from './support/quests.js'

describe('a join cut short by a crash', () => {
  /**
   * Makes the chosen statement fail `times` times from its `nth` run (a sequence is not rolled back
   * with its transaction). The value is read once: BETWEEN would evaluate nextval twice.
   */
  async function failOnce(a: TestApp, name: string, trigger: string, nth: number, times = 1) {
    await a.database.db.execute(sql.raw(`create sequence ${name}_seq`))
    await a.database.db.execute(sql.raw(`create function ${name}() returns trigger language plpgsql as $$
      declare n bigint := nextval('${name}_seq');
      begin if n between ${nth} and ${nth + times - 1} then raise exception 'injected failure'; end if; return new; end $$`))
    await a.database.db.execute(sql.raw(`create trigger fail_once ${trigger} for each row execute function ${name}()`))
  }

  test('failing on the second copy: the retry, or the recovery job, ends with exactly one copy of each habit', async ({ onTestFinished }) => {
    const c = new ManualClock(new Date('2026-03-02T10:00:00Z'))
    const local = await buildTestApp({ clock: c, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } })
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const q = await newPlayer(local)
    const id = await createQuest(local, p)
    // The second habit insert from now on fails, once; over HTTP (split services) the quest's
    // call to tracking is itself retried twice, so there it fails for those attempts too.
    await failOnce(local, 'tracking.fail_second_insert', 'before insert on tracking.habits', 2, 1 + callRetries)

    const crashed = await join(local, p, id)
    // In one process the failure is the quest's own (500); over HTTP tracking's failure makes it a 502.
    expect(crashed.statusCode).toBe(callRetries > 0 ? 502 : 500)
    expect(crashed.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(await habitsOf(local, p)).toHaveLength(1)

    const retried = await join(local, p, id)
    expect(retried.statusCode, retried.body).toBe(200)
    expect((await join(local, p, id)).statusCode).toBe(200)
    const copies = await habitsOf(local, p)
    expect(copies.map((h) => h.title).sort()).toEqual(['Read 20 pages', 'Run 5 km'])
    expect(copies.every((h) => h.associatedQuestId === id)).toBe(true)
    expect(copies.map((h) => h.id).sort()).toEqual(retried.json().habits.map((h: { copyHabitId: string }) => h.copyHabitId).sort())

    // Without a retry, the recovery job finishes the join a minute later.
    await local.database.db.execute(sql`alter sequence tracking.fail_second_insert_seq restart`)
    // The first join made the first copy; q's join now fails on its second insert again.
    expect((await join(local, q, id)).statusCode).toBe(callRetries > 0 ? 502 : 500)
    expect(await habitsOf(local, q)).toHaveLength(1)
    c.advance(2 * 60_000)
    await signIn(local, q)
    await local.runJob(FINISH_JOINS_JOB)
    expect((await habitsOf(local, q)).map((h) => h.title).sort()).toEqual(['Read 20 pages', 'Run 5 km'])
  })

  test('failing after tracking made every copy: the retry makes none again', async ({ onTestFinished }) => {
    const local = await buildTestApp()
    onTestFinished(() => local.close())
    const p = await newPlayer(local)
    const id = await createQuest(local, p)
    // Recording that the copies exist (the first participation update) fails, once.
    await failOnce(local, 'quest.fail_first_update', 'before update on quest.participations', 1)
    expect((await join(local, p, id)).statusCode).toBe(500)
    expect(await habitsOf(local, p)).toHaveLength(2)
    const retried = await join(local, p, id)
    expect(retried.statusCode, retried.body).toBe(200)
    const copies = await habitsOf(local, p)
    expect(copies).toHaveLength(2)
    expect(copies.map((h) => h.id).sort()).toEqual(retried.json().habits.map((h: { copyHabitId: string }) => h.copyHabitId).sort())
  })
})
