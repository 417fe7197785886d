import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { onInterrupt } from './processes.js'

/** A NATS stream and subject prefix for one target, deleted afterwards. */
export async function withStream(natsUrl: string, run: (env: Record<string, string>) => Promise<void>): Promise<void> {
  const id = `qlbench_${Date.now().toString(36)}`
  const remove = async () => {
    const nc = await connect({ servers: natsUrl })
    try {
      await (await jetstreamManager(nc)).streams.delete(id).catch(() => false)
    } finally {
      await nc.close()
    }
  }
  const unregister = onInterrupt(remove)
  try {
    await run({ NATS_URL: natsUrl, NATS_STREAM: id, NATS_SUBJECT_PREFIX: id })
  } finally {
    await remove()
    unregister()
  }
}
