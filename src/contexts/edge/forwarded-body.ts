/**
 * The body a forwarded request sends, attempt by attempt. A body that may have to go twice (a keyed
 * write, which a dropped connection sends again) is read whole first: it is at most the body limit.
 * Any other streams through as it comes, taken from the client only once an attempt reads it, so
 * an attempt refused before it read anything leaves the body whole for another.
 */
import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { limitedBody } from '../../platform/http/get-body.js'

export interface ForwardedBody {
  /** The body of the next attempt; undefined for none. */
  take(): Readable | undefined
  /** Whether another attempt can still send it whole. */
  whole(): boolean
  /** The client sent more than the limit (the attempt failed for that). */
  tooLarge(): boolean
}

export const noBody: ForwardedBody = { take: () => undefined, whole: () => true, tooLarge: () => false }

/** Read whole now (up to `limit`: over it, refused as the stream refuses it), sent again as often as asked. */
export async function bufferedBody(raw: IncomingMessage, limit: number): Promise<ForwardedBody> {
  const chunks: Buffer[] = []
  for await (const chunk of limitedBody(raw, limit).stream) chunks.push(chunk as Buffer)
  const bytes = Buffer.concat(chunks)
  return { take: () => Readable.from([bytes]), whole: () => true, tooLarge: () => false }
}

/** Streamed through (held to `limit`); whole for another attempt until one has read from it. */
export function streamedBody(raw: IncomingMessage, limit: number): ForwardedBody {
  const body = limitedBody(raw, limit)
  let read = false
  // An attempt's stream pulls from the client's only when it is read; dropped unread (a refused
  // connection), it leaves the client's untouched.
  const chunks = async function* () {
    for await (const chunk of body.stream.iterator({ destroyOnReturn: false })) {
      read = true
      yield chunk as Buffer
    }
  }
  return { take: () => Readable.from(chunks(), { objectMode: false }), whole: () => !read, tooLarge: body.tooLarge }
}
