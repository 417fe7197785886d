/**
 * Route config of a route that answers with a stream that does not end (server-sent events): the
 * gateway forwards it on a connection of its own, passing each chunk on as it comes.
 */
export interface StreamingConfig {
  streaming?: boolean
}
