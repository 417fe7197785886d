/**
 * What PostgreSQL itself did during a window of a bench, to explain latency that the server's
 * own figures do not: checkpoints, WAL written, autovacuum and autoanalyze runs, dead rows, the
 * CPU its processes used, and how many of the database's backends were waiting (on a lock, a
 * lightweight lock or I/O), sampled a few times a second.
 */
import pg from 'pg'
import { coresBetween as cores, cpuTicks, processTicks } from './cpu.js'

export interface PgWindow {
  checkpoints: number
  checkpointBuffers: number
  walMb: number
  autovacuums: number
  autoanalyzes: number
  deadRows: number
  /** The table with the most dead rows, and how many. */
  deadest: string
  /** CPU seconds used by every postgres process on the machine, per second of the window (1 = one core). */
  cores: number | undefined
  /** The same for the server process under test. */
  serverCores: number | undefined
  /** The most backends of this database waiting at one sample, by wait event type. */
  waiting: Record<string, number>
}

interface Counters {
  checkpoints: number
  checkpointBuffers: number
  walBytes: number
  autovacuums: number
  autoanalyzes: number
  cpuTicks: number | undefined
  serverTicks: number | undefined
  at: number
}

const SAMPLE_EVERY_MS = 250

export class PgActivity {
  private waiting: Record<string, number> = {}
  private timer: NodeJS.Timeout | undefined
  private sampling = false

  private constructor(private readonly client: pg.Client, private readonly serverPid: number, private last: Counters) {}

  static async start(url: string, serverPid: number): Promise<PgActivity> {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const activity = new PgActivity(client, serverPid, await counters(client, serverPid))
    activity.timer = setInterval(() => void activity.sampleWaits(), SAMPLE_EVERY_MS)
    return activity
  }

  /** The figures since the previous call (or the start). */
  async window(): Promise<PgWindow> {
    const now = await counters(this.client, this.serverPid)
    const was = this.last
    this.last = now
    const waiting = this.waiting
    this.waiting = {}
    const dead = await this.client.query<{ table: string; dead: string }>(
      `select schemaname || '.' || relname as "table", n_dead_tup::text as dead from pg_stat_user_tables order by n_dead_tup desc`)
    const seconds = (now.at - was.at) / 1000
    return {
      checkpoints: now.checkpoints - was.checkpoints,
      checkpointBuffers: now.checkpointBuffers - was.checkpointBuffers,
      walMb: Math.round((now.walBytes - was.walBytes) / 1024 / 1024),
      autovacuums: now.autovacuums - was.autovacuums,
      autoanalyzes: now.autoanalyzes - was.autoanalyzes,
      deadRows: dead.rows.reduce((sum, r) => sum + Number(r.dead), 0),
      deadest: dead.rows[0] ? `${dead.rows[0].table} ${dead.rows[0].dead}` : '—',
      cores: coresBetween(was.cpuTicks, now.cpuTicks, seconds),
      serverCores: coresBetween(was.serverTicks, now.serverTicks, seconds),
      waiting,
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.client.end()
  }

  private async sampleWaits(): Promise<void> {
    if (this.sampling) return
    this.sampling = true
    try {
      const r = await this.client.query<{ type: string; n: number }>(
        `select wait_event_type as type, count(*)::int as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and wait_event_type is not null
          group by 1`)
      for (const { type, n } of r.rows) this.waiting[type] = Math.max(this.waiting[type] ?? 0, n)
    } catch {
      // A sample lost while the client is ending.
    } finally {
      this.sampling = false
    }
  }
}

const coresBetween = (from: number | undefined, to: number | undefined, seconds: number) => {
  const c = cores(from, to, seconds)
  return c === undefined ? undefined : Math.round(c * 100) / 100
}

async function counters(client: pg.Client, serverPid: number): Promise<Counters> {
  const r = await client.query<{ checkpoints: string; buffers: string; wal: string; vacuums: string; analyzes: string }>(`
    select (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::text as checkpoints,
           (select buffers_checkpoint from pg_stat_bgwriter)::text as buffers,
           pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as wal,
           (select coalesce(sum(autovacuum_count), 0) from pg_stat_user_tables)::text as vacuums,
           (select coalesce(sum(autoanalyze_count), 0) from pg_stat_user_tables)::text as analyzes`)
  const row = r.rows[0]!
  return {
    checkpoints: Number(row.checkpoints), checkpointBuffers: Number(row.buffers), walBytes: Number(row.wal),
    autovacuums: Number(row.vacuums), autoanalyzes: Number(row.analyzes),
    cpuTicks: await cpuTicks((name) => name.startsWith('postgres')), serverTicks: await processTicks(serverPid), at: Date.now(),
  }
}
