/**
 * What a context tells the writer about one of its aggregates: its table, how a row becomes the
 * state the rules decide on and back, the columns set once when it is made, and the rows of other
 * tables of its own that a change may write with it (its parts). The writer derives every
 * statement from the drizzle table definitions: a column added to the table (and to the state) is
 * written with every change, with no list to keep by hand.
 */
import { getTableColumns } from 'drizzle-orm'
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core'
import type { Outbox } from '../events/outbox.js'

/** The state of an aggregate as the rules see it: it carries the version the writer keeps. */
export interface Versioned {
  version: number
}

/**
 * How a part's rows meet rows already there: not at all (a key clash fails the write), or by adding
 * up the `addUp` columns and taking the new row's `latest` columns.
 */
export type PartConflict = { addUp: PgColumn[]; on: PgColumn[]; latest?: PgColumn[] }

/** A table of the context whose rows a change writes together with its aggregate, and only with it. */
export interface PartDefinition {
  table: PgTable
  /** The column naming the aggregate a row belongs to. */
  of: PgColumn
  conflict?: PartConflict
}

/**
 * The answers of keyed calls (an idempotency key, or an event applied once): a key answered before
 * answers again as it did, and changes nothing. One table per aggregate, with these columns.
 */
export interface AnswersDefinition {
  table: PgTable
  key: PgColumn
  of: PgColumn
  operation: PgColumn
  result: PgColumn
  at: PgColumn
}

/** A row of a table by its TypeScript field names (drizzle's insert shape). */
export type RowOf<T extends PgTable> = T['$inferInsert']

/** The tables of an aggregate: what every statement of the writer is derived from. */
export interface AggregateTables<T extends PgTable = PgTable, P extends string = string> {
  /** What it is called in answers ("avatar 'x' is changing too fast") and statement names. */
  name: string
  table: T
  key: PgColumn
  version: PgColumn
  /** Columns written when the aggregate is made and never by a change (its owner, when it was made). */
  fixed?: PgColumn[]
  outbox: Outbox
  parts?: Record<P, PartDefinition>
  answers?: AnswersDefinition
}

export interface AggregateDefinition<S extends Versioned, T extends PgTable = PgTable, P extends string = string> extends AggregateTables<T, P> {
  // Methods, not function-valued fields: a definition of one table is then a definition of a PgTable.
  toState(row: T['$inferSelect']): S
  /** The row of a state: at least every column a change writes (the fixed ones come with `insert`). */
  toRow(state: S): Partial<RowOf<T>>
  /** The aggregate's key in `state`. */
  keyOf(state: S): string
}

/** A column as the writer handles it: its field in the row, its name and its SQL type. */
export interface ColumnShape {
  field: string
  name: string
  type: string
}

/** `bigserial` and `serial` make sequences; as a value they are plain integers. */
const valueType = (c: PgColumn): string => {
  const t = c.getSQLType()
  return t === 'bigserial' ? 'bigint' : t === 'serial' ? 'integer' : t === 'smallserial' ? 'smallint' : t
}

/** Every column of a table with its field name, in the table's order. */
export function columnsOf(table: PgTable): ColumnShape[] {
  return Object.entries(getTableColumns(table)).map(([field, c]) => ({ field, name: c.name, type: valueType(c as PgColumn) }))
}

/** `schema.table`, quoted. */
export function tableName(table: PgTable): string {
  const { schema, name } = getTableConfig(table)
  return schema ? `"${schema}"."${name}"` : `"${name}"`
}

/** A column's name, quoted. */
export const quoted = (c: { name: string }) => `"${c.name}"`

/**
 * A row as JSON for `jsonb_to_recordset`: keyed by column name, dates as ISO instants, jsonb
 * values as they are. Fields the row lacks are left out (they read as null).
 */
export function rowJson(columns: ColumnShape[], row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const c of columns) {
    const v = row[c.field]
    if (v === undefined) continue
    out[c.name] = v instanceof Date ? v.toISOString() : v
  }
  return out
}

/** The columns a change writes: all but the key and the fixed ones (the version among them). */
export function changingColumns(d: AggregateTables): ColumnShape[] {
  const fixed = new Set([d.key, ...(d.fixed ?? [])].map((c) => c.name))
  return columnsOf(d.table).filter((c) => !fixed.has(c.name))
}

export const keyColumn = (d: AggregateTables): ColumnShape => columnsOf(d.table).find((c) => c.name === d.key.name)!
