/**
 * Route config of a route that answers with a stream that does not end (server-sent events): the
 * gateway forwards it on a connection of its own, passing each chunk on as it comes.
 */
export interface StreamingConfig {
  streaming?: boolean
}

/** A client told to reconnect waits at least this long, and up to twice as long: clients of one process spread out. */
const RECONNECT_AFTER_MS = 1_000

/**
 * The last words of a stream whose process is draining: an SSE `retry:` (how long the client waits
 * before it reconnects, to another process) and a `reconnect` event saying so. It carries no id, so
 * the client's Last-Event-ID stays the last event it had, and its reconnect goes on from there.
 */
export function reconnectHint(): string {
  const retryMs = Math.round(RECONNECT_AFTER_MS * (1 + Math.random()))
  const data = { detail: 'This server is going away: reconnect, with the Last-Event-ID you have.', retryMs }
  return `retry: ${retryMs}\nevent: reconnect\ndata: ${JSON.stringify(data)}\n\n`
}
