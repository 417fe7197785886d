/**
 * A client of the live stream (server-sent events) for tests: opens it over a real socket, parses
 * each event as it arrives, and waits for the ones a test expects.
 */
import { request, type IncomingMessage } from 'node:http'
import { json } from 'node:stream/consumers'

export interface SseEvent {
  id?: string
  event: string
  data: unknown
}

export interface OpenStream {
  status: number
  /** The response body when it was a refusal (problem+json). */
  problem?: { type: string; status: number; detail?: string }
  contentType: string
  events: SseEvent[]
  /** Comment lines seen (heartbeats). */
  comments: number
  /** Settles when the server ends the stream (or it is closed here). */
  ended: Promise<void>
  /** The first event after the `seen`-th that matches, waiting up to `timeoutMs`. */
  next(match: (e: SseEvent) => boolean, timeoutMs?: number, seen?: number): Promise<SseEvent>
  close(): void
}

/**
 * GET over a socket of its own (no pool): closing the stream closes its connection. Over `fetch`,
 * undici's pool opened a fresh connection just after a stream was aborted and never used it, and
 * a server's close waited for that connection until its headers timeout (60 s).
 */
function get(url: string, headers: Record<string, string>): Promise<{ res: IncomingMessage; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => resolve({ res, close: () => req.destroy() }))
    req.on('error', reject)
    req.end()
  })
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const { res, close } = await get(url, { accept: 'text/event-stream', ...headers })
  const contentType = res.headers['content-type'] ?? ''
  const events: SseEvent[] = []
  const waiters = new Set<() => void>()
  const stream: OpenStream = {
    status: res.statusCode ?? 0, contentType, events, comments: 0, ended: Promise.resolve(),
    async next(match, timeoutMs = 5_000, seen = 0) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = events.slice(seen).find(match)
        if (found) return found
        if (finished) throw new Error(`the stream ended without the event; it had: ${JSON.stringify(events.map((e) => e.event))}`)
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`no such event within ${timeoutMs} ms; the stream had: ${JSON.stringify(events.map((e) => `${e.id ?? ''} ${e.event}`))}`)
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer)
            waiters.delete(wake)
            resolve()
          }
          const timer = setTimeout(wake, left)
          waiters.add(wake)
        })
      }
    },
    close,
  }
  let finished = false
  if (!contentType.startsWith('text/event-stream')) {
    stream.problem = (await json(res)) as OpenStream['problem']
    finished = true
    return stream
  }
  stream.ended = (async () => {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of res) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const fields: Record<string, string> = {}
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments++
            else {
              const colon = line.indexOf(':')
              if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '')
            }
          }
          if (fields.data !== undefined) {
            events.push({ ...(fields.id !== undefined ? { id: fields.id } : {}), event: fields.event ?? 'message', data: JSON.parse(fields.data) })
          }
        }
        for (const wake of [...waiters]) wake()
      }
    } catch {
      // Closed here, or cut by the server.
    } finally {
      finished = true
      for (const wake of [...waiters]) wake()
    }
  })()
  return stream
}
