/** The parameters of the writer's group write (`writeStatement`): every aggregate's change of the moment as JSON rows. */
import type { WrittenEvent } from '../events/outbox.js'
import { rowJson, type AggregateDefinition, type ColumnShape, type Versioned } from './aggregate.js'
import type { PartRows } from './decisions.js'
import { partColumns } from './statements.js'

/** One aggregate's change, decided and ready to write. */
export interface Write<S> {
  id: string
  readVersion: number
  state: S
  events: WrittenEvent[]
  answers: { key: string; operation: string; result: unknown }[]
  parts: PartRows
  at: Date
}

/** Runs the group write's text with its parameters: in autocommit (prepared), or in a transaction. */
export type StatementRunner = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>

/** $1 the states, $2 the events, then the keyed answers (when kept), then each part's rows, in the definition's order. */
export function writeParams<S extends Versioned>(d: AggregateDefinition<S>, stateColumns: ColumnShape[], writes: Write<S>[]): unknown[] {
  // In one order in every process, so that two writes of overlapping aggregates rarely deadlock.
  const sorted = [...writes].sort((x, y) => (x.id < y.id ? -1 : 1))
  const states = sorted.map((w) => ({ ...rowJson(stateColumns, d.toRow(w.state) as Record<string, unknown>), __read_version: w.readVersion }))
  const events = sorted.flatMap((w) => w.events.map((e) => ({ ...e, aggregate_id: w.id, occurred_at: w.at.toISOString() })))
  const params: unknown[] = [JSON.stringify(states), JSON.stringify(events)]
  if (d.answers) {
    const a = d.answers
    params.push(JSON.stringify(sorted.flatMap((w) => w.answers.map((k) => ({
      [a.key.name]: k.key, [a.of.name]: w.id, [a.operation.name]: k.operation, [a.result.name]: k.result, [a.at.name]: w.at.toISOString(),
    })))))
  }
  for (const [name, part] of Object.entries(d.parts ?? {})) {
    const columns = partColumns(part.table)
    const conflict = part.conflict && {
      on: part.conflict.on.map((c) => c.name), addUp: part.conflict.addUp.map((c) => c.name), latest: (part.conflict.latest ?? []).map((c) => c.name),
    }
    params.push(JSON.stringify(sorted.flatMap((w) => mergeConflicting(conflict, (w.parts[name] ?? []).map((r) => rowJson(columns, r))))))
  }
  return params
}

/**
 * Rows of one write that would meet on the same key, as one (their `addUp` columns summed, the last
 * row's `latest` columns): one statement may not touch a row twice.
 */
function mergeConflicting(conflict: { on: string[]; addUp: string[]; latest: string[] } | undefined, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  if (!conflict || rows.length < 2) return rows
  const merged = new Map<string, Record<string, unknown>>()
  for (const row of rows) {
    const k = JSON.stringify(conflict.on.map((c) => row[c]))
    const seen = merged.get(k)
    if (!seen) merged.set(k, { ...row })
    else {
      for (const c of conflict.addUp) seen[c] = Number(seen[c]) + Number(row[c])
      for (const c of conflict.latest) seen[c] = row[c]
    }
  }
  return [...merged.values()]
}
