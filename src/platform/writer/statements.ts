/**
 * The writer's two statements per aggregate, derived from its table definitions: one that loads
 * many aggregates with the answers of the keys their commands carry, and one that writes many
 * aggregates' changes (group commit), each guarded by the version that was read, with its events,
 * its keyed answers and its parts, all written only with their aggregate's state. Both run in
 * autocommit, so no lock is held across a round trip.
 */
import { getTableColumns } from 'drizzle-orm'
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core'
import {
  changingColumns, columnsOf, keyColumn, quoted, tableName, type AggregateTables, type ColumnShape, type PartDefinition,
} from './aggregate.js'

const recordset = (param: string, columns: ColumnShape[]) =>
  `jsonb_to_recordset(${param}::jsonb) as x(${columns.map((c) => `${quoted(c)} ${c.type}`).join(', ')})`

/** The columns of a part that rows give: all but those a sequence fills. */
export const partColumns = (table: PgTable): ColumnShape[] =>
  columnsOf(table).filter((c) => !Object.values(getTableColumns(table)).some((col) => (col as PgColumn).name === c.name && /serial/.test((col as PgColumn).getSQLType())))

/** The outbox's columns as the write fills them. */
const EVENT_COLUMNS: ColumnShape[] = [
  { field: 'id', name: 'id', type: 'uuid' },
  { field: 'type', name: 'type', type: 'text' },
  { field: 'aggregateId', name: 'aggregate_id', type: 'text' },
  { field: 'version', name: 'version', type: 'integer' },
  { field: 'occurredAt', name: 'occurred_at', type: 'timestamp with time zone' },
  { field: 'payload', name: 'payload', type: 'jsonb' },
]

function partInsert(name: string, part: PartDefinition, param: string, key: ColumnShape): string {
  const columns = partColumns(part.table)
  const list = columns.map(quoted).join(', ')
  const conflict = part.conflict
    ? `on conflict (${part.conflict.on.map(quoted).join(', ')}) do update set ${[
      ...part.conflict.addUp.map((c) => `${quoted(c)} = p.${quoted(c)} + excluded.${quoted(c)}`),
      ...(part.conflict.latest ?? []).map((c) => `${quoted(c)} = excluded.${quoted(c)}`),
    ].join(', ')}`
    : ''
  return `${name} as (
  insert into ${tableName(part.table)} as p (${list})
  select ${columns.map((c) => `x.${quoted(c)}`).join(', ')} from ${recordset(param, columns)}
    join w on w.${quoted(key)} = x.${quoted(part.of)}
  ${conflict}
)`
}

/**
 * $1: the states ({key, read_version, …changing columns}); $2: the events; $3: the keyed answers
 * (when the aggregate keeps them); then one parameter per part, in the definition's order.
 * Answers the keys of the aggregates written.
 */
export function writeStatement(d: AggregateTables): string {
  const key = keyColumn(d)
  const changing = changingColumns(d)
  const stateColumns = [key, { field: '__readVersion', name: '__read_version', type: 'integer' }, ...changing]
  const ctes = [
    `input as (select * from ${recordset('$1', stateColumns)})`,
    `w as (
  update ${tableName(d.table)} t set ${changing.map((c) => `${quoted(c)} = i.${quoted(c)}`).join(', ')}
    from input i
   where t.${quoted(key)} = i.${quoted(key)} and t.${quoted(d.version)} = i."__read_version"
  returning t.${quoted(key)}
)`,
    `e as (
  insert into ${tableName(d.outbox.table)} (${EVENT_COLUMNS.map(quoted).join(', ')})
  select ${EVENT_COLUMNS.map((c) => `x.${quoted(c)}`).join(', ')} from ${recordset('$2', EVENT_COLUMNS)}
    join w on w.${quoted(key)}::text = x."aggregate_id"
)`,
  ]
  let next = 3
  if (d.answers) {
    const a = d.answers
    const columns = [a.key, a.of, a.operation, a.result, a.at].map((c) => ({ field: c.name, name: c.name, type: c.getSQLType() }))
    ctes.push(`k as (
  insert into ${tableName(a.table)} (${columns.map(quoted).join(', ')})
  select ${columns.map((c) => `x.${quoted(c)}`).join(', ')} from ${recordset(`$${next++}`, columns)}
    join w on w.${quoted(key)} = x.${quoted(a.of)}
)`)
  }
  for (const [i, part] of Object.values<PartDefinition>(d.parts ?? {}).entries()) ctes.push(partInsert(`p${i}`, part, `$${next++}`, key))
  return `with ${ctes.join(',\n')}\nselect ${quoted(key)}::text as key from w`
}

/**
 * The answers already given to keys among those asked (a jsonb array of texts at `keysParam`), as a
 * jsonb array of {key, of, operation, result}: for a load of the context's own. The keys go in as
 * an array (`= any(array(…))`), so every plan, the generic one of a prepared statement included,
 * looks each up in the key's index; as a semi join a plan may scan the whole table per aggregate.
 */
export function answersAmong(d: AggregateTables, keysSql: string): string {
  const a = d.answers
  if (!a) return `'[]'::jsonb`
  return `(select coalesce(jsonb_agg(jsonb_build_object('key', c.${quoted(a.key)}, 'of', c.${quoted(a.of)}, 'operation', c.${quoted(a.operation)}, 'result', c.${quoted(a.result)})), '[]'::jsonb)
     from ${tableName(a.table)} c where c.${quoted(a.key)} = any(array(select jsonb_array_elements_text(${keysSql}))))`
}

/** $1: [{id, keys}]: each aggregate's row as JSON, with the answers of those keys given before. */
export function loadStatement(d: AggregateTables): string {
  const key = keyColumn(d)
  return `select to_jsonb(t) as row, ${answersAmong(d, 'r.keys')} as answers
  from jsonb_to_recordset($1::jsonb) as r(id ${key.type}, keys jsonb)
  join ${tableName(d.table)} t on t.${quoted(key)} = r.id`
}

/** A row read as JSON (`to_jsonb`), in drizzle's select shape: each column as its definition maps a value from the database. */
export function rowFromJson<T extends PgTable>(table: T, json: Record<string, unknown>): T['$inferSelect'] {
  const out: Record<string, unknown> = {}
  for (const [field, c] of Object.entries(getTableColumns(table))) {
    const column = c as PgColumn
    const v = json[column.name]
    // A json column's value arrives parsed already; mapping it again would parse a string that looks like JSON.
    out[field] = v === null || v === undefined ? null : /^PgJsonb?$/.test(column.columnType) ? v : column.mapFromDriverValue(v)
  }
  return out as T['$inferSelect']
}
