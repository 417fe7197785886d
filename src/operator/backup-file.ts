/**
 * An embedded backup is one file: a header line, a JSON line with the data directory's own files
 * (the signing key, so sessions survive a restore), then PGlite's gzipped dump of its database.
 * It holds the private key: written readable by its owner only.
 */
import { readFile } from 'node:fs/promises'

const MAGIC = 'QUESTLINE-BACKUP 1'

interface BackupContents {
  createdAt: string
  /** Files of the data directory beside the database, by path relative to it. */
  files: Record<string, string>
  /** PGlite's dump of the database (tar, gzipped). */
  database: Uint8Array
}

export class BadBackup extends Error {}

export function encodeBackup(c: BackupContents): Buffer {
  const head = `${MAGIC}\n${JSON.stringify({ createdAt: c.createdAt, files: c.files })}\n`
  return Buffer.concat([Buffer.from(head, 'utf8'), c.database])
}

function decodeBackup(bytes: Buffer, from: string): BackupContents {
  const first = bytes.indexOf(0x0a)
  const second = first < 0 ? -1 : bytes.indexOf(0x0a, first + 1)
  if (first < 0 || second < 0 || bytes.subarray(0, first).toString('utf8') !== MAGIC) {
    throw new BadBackup(`${from} is not a Questline backup (made by \`questline backup\`).`)
  }
  let meta: { createdAt?: unknown; files?: unknown }
  try {
    meta = JSON.parse(bytes.subarray(first + 1, second).toString('utf8')) as typeof meta
  } catch {
    throw new BadBackup(`${from} is a damaged Questline backup: its header does not read.`)
  }
  const files = meta.files && typeof meta.files === 'object' ? meta.files as Record<string, unknown> : {}
  const safe = Object.entries(files).every(([name, text]) => typeof text === 'string' && !name.startsWith('/') && !name.split('/').includes('..'))
  if (typeof meta.createdAt !== 'string' || !safe) throw new BadBackup(`${from} is a damaged Questline backup: its header does not read.`)
  return { createdAt: meta.createdAt, files: files as Record<string, string>, database: bytes.subarray(second + 1) }
}

export async function readBackup(file: string): Promise<BackupContents> {
  return decodeBackup(await readFile(file), file)
}
