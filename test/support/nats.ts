import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'

/** NATS settings for one test platform or cluster, and how to remove what it made. */
export interface NatsSettings {
  env: Record<string, string>
  cleanup(): Promise<void>
}

/** A stream and subject prefix of its own on the server at `url`, deleted by `cleanup`. */
export function ownStream(url: string, id: string): NatsSettings {
  return {
    env: { NATS_URL: url, NATS_STREAM: id, NATS_SUBJECT_PREFIX: id },
    cleanup: async () => {
      const nc = await connect({ servers: url })
      try {
        await (await jetstreamManager(nc)).streams.delete(id).catch(() => false)
      } finally {
        await nc.close()
      }
    },
  }
}
