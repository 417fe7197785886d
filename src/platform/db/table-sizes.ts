import { sql } from 'drizzle-orm'
import { Gauge } from 'prom-client'
import type { MetricsSource } from '../http/metrics.js'
import type { Database } from './database.js'

interface TableSize {
  table: string
  rows: number
  bytes: number
}

/**
 * How big each table of these schemas is, sampled in the background from the catalog in one statement
 * (no table is scanned): `db_table_rows`, the statistics' estimate of live rows (`n_live_tup`,
 * which follows inserts and deletes as they commit; else `reltuples`, as of the last vacuum or
 * analyze), and `db_table_bytes`, its size on disk with indexes and TOAST.
 */
export function tableSizeMetrics(database: Database, schemas: string[]): MetricsSource {
  return (registry, reads) => {
    const sizes = reads.sampled('table_sizes', () => readSizes(database, schemas))
    new Gauge({
      name: 'db_table_rows', help: 'Estimated live rows per table (database statistics)', labelNames: ['table'], registers: [registry],
      collect() {
        this.reset()
        for (const s of sizes() ?? []) this.set({ table: s.table }, s.rows)
      },
    })
    new Gauge({
      name: 'db_table_bytes', help: 'Size on disk per table, with its indexes and TOAST', labelNames: ['table'], registers: [registry],
      collect() {
        this.reset()
        for (const s of sizes() ?? []) this.set({ table: s.table }, s.bytes)
      },
    })
  }
}

async function readSizes(database: Database, schemas: string[]): Promise<TableSize[]> {
  const result = await database.db.execute(sql`
    select n.nspname || '.' || c.relname as "table",
           coalesce(s.n_live_tup::float8, greatest(c.reltuples, 0)::float8) as "rows",
           pg_total_relation_size(c.oid)::float8 as "bytes"
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_stat_user_tables s on s.relid = c.oid
     where c.relkind in ('r', 'p') and n.nspname in (${sql.join(schemas.map((s) => sql`${s}`), sql`, `)})
     order by 1`)
  const rows = (result as unknown as { rows: { table: string; rows: number | string; bytes: number | string }[] }).rows
  return rows.map((r) => ({ table: r.table, rows: Number(r.rows), bytes: Number(r.bytes) }))
}
