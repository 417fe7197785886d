import pg from 'pg'
import { onInterrupt } from './processes.js'

/** A fresh database for the run, dropped afterwards — also when a target fails or the run is interrupted. */
export async function withBenchDatabase(adminUrl: string, run: (url: string) => Promise<void>): Promise<void> {
  const database = `ql_bench_${Date.now()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  const drop = () => admin.query(`drop database if exists "${database}" with (force)`).then(() => undefined)
  const unregister = onInterrupt(drop)
  try {
    await admin.query(`create database "${database}"`)
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    await run(url.toString())
  } finally {
    await drop()
    unregister()
    await admin.end()
  }
}
