import { describe, expect, test } from 'vitest'
import { newHabit } from '../../domain/habit.js'
import { defaultHistory } from '../../domain/settings.js'
import { InvalidImport } from './errors.js'
import { archivingOf, withArchiving } from './imported-archiving.js'

const habit = newHabit({ id: 'h', avatarId: 'a', ownerId: 'o', title: 'T', description: '', tags: [], recurrence: { type: 'DAILY' }, ownTimeZone: null, associatedQuestId: null },
  '2026-03-10', defaultHistory())
const at = '/avatars/0/habits/0/habit'

describe('an imported habit\'s archiving', () => {
  test('absent: never archived', () => {
    expect(archivingOf({}, at)).toEqual({ archived: false, spans: [] })
    expect(withArchiving(habit, archivingOf({}, at), '2026-03-10')).toMatchObject({ archived: false, archivedSpans: [] })
  })

  test('archived with its open span, it stays archived from that span; archived without one, from the day of the import', () => {
    const spans = [{ from: '2026-01-05', until: '2026-01-20' }, { from: '2026-03-01', until: null }]
    expect(withArchiving(habit, archivingOf({ archived: true, archivedSpans: spans }, at), '2026-03-10')).toMatchObject({ archived: true, archivedSpans: spans })
    expect(withArchiving(habit, archivingOf({ archived: true }, at), '2026-03-10')).toMatchObject({ archived: true, archivedSpans: [{ from: '2026-03-11', until: null }] })
  })

  test('not archived, an open span ends after the window under way on the day of the import', () => {
    const got = withArchiving(habit, archivingOf({ archived: false, archivedSpans: [{ from: '2026-03-01', until: null }] }, at), '2026-03-10')
    expect(got).toMatchObject({ archived: false, archivedSpans: [{ from: '2026-03-01', until: '2026-03-11' }] })
  })

  test.each([
    [[{ from: 'March', until: null }], '/archivedSpans/0/from'],
    [[{ from: '2026-03-01', until: '2026-02-30' }], '/archivedSpans/0/until'],
    [[{ from: '2026-03-01', until: '2026-03-01' }], '/archivedSpans/0/until'],
    [[{ from: '2026-03-01', until: null }, { from: '2026-03-05', until: '2026-03-07' }], '/archivedSpans/0/until'],
    [[{ from: '2026-03-01', until: '2026-03-09' }, { from: '2026-03-05', until: '2026-03-07' }], '/archivedSpans/1/from'],
  ])('%j is refused at its field', (spans, field) => {
    let thrown: unknown
    try {
      archivingOf({ archived: true, archivedSpans: spans }, at)
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(InvalidImport)
    expect((thrown as InvalidImport).errors).toEqual([expect.objectContaining({ path: `${at}${field}` })])
  })
})
