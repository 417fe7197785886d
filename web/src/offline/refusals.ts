/** What the player reads when a check-in made offline was refused on its way up. */
import type { Problem } from '../api/client'
import { formatDate } from '../time'

/** The reason for each refusal a check-in can meet, by problem slug (docs/api.md, check-ins in bulk). */
const REASONS: Record<string, string> = {
  'window-already-completed': 'that window had already been completed',
  'day-already-completed': 'that day had already been completed',
  'before-first-window': 'that was before the habit began',
  'attend-in-future': 'its date was too far ahead of the server\'s time',
  'habit-archived': 'the habit is archived',
  'not-found': 'the habit no longer exists',
  'not-owner': 'the habit belongs to another player',
  'idempotency-key-reused': 'it clashed with another check-in',
}

const slugOf = (p: Partial<Problem> | undefined) => (p?.type ?? '').replace(/^.*\/problems\//, '')

/** `Your check-in of 'Read' on Tue, Nov 24 was not counted: that window had already been completed.` */
export function refusalText(title: string, date: string, problem: Partial<Problem> | undefined): string {
  const reason = REASONS[slugOf(problem)] ?? (problem?.detail || problem?.title || 'the server refused it').replace(/\.$/, '')
  return `Your check-in of '${title}' on ${formatDate(date)} was not counted: ${reason}.`
}
