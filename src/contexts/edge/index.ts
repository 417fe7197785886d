import type { FastifyPluginAsync } from 'fastify'
import type { RevocationList } from '../../platform/auth/revocations.js'
import type { AccessTokens } from '../../platform/auth/tokens.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { Outbox } from '../../platform/events/outbox.js'
import { contextModule } from '../../platform/module.js'
import type { AvatarClient } from '../avatar/client.js'
import { IdentityApp, type IdentityDeps } from './app/identity-app.js'
import { REGISTRATION_RECOVERY_EVERY_MS } from './domain/rules.js'
import type { EdgeDraft } from './events.js'
import { identityRoutes } from './http/routes.js'
import { outbox as outboxTable } from './store/tables.js'

export const RECOVER_REGISTRATIONS_JOB = 'edge.recover-registrations'

/**
 * The edge: accounts, logins and tokens under /auth, the player web app at /, and (split
 * services) the gateway to the other contexts' processes (`gateway.ts`).
 */
export const edgeModule = contextModule({
  name: 'edge',
  build(deps: {
    database: Database
    clock: Clock
    tokens: AccessTokens
    revocations: RevocationList
    config: IdentityDeps['config']
    ports: { avatar: AvatarClient }
  }) {
    const outbox = new Outbox<EdgeDraft>('edge', outboxTable, deps.clock, deps.database)
    const { database, clock, tokens, revocations, config } = deps
    const app = new IdentityApp({ database, clock, tokens, revocations, config, avatars: deps.ports.avatar, outbox })
    const rootRoutes: FastifyPluginAsync = async (f) => {
      await f.register(identityRoutes, { app, tokens })
    }
    return {
      rootRoutes,
      outbox,
      jobs: [{ name: RECOVER_REGISTRATIONS_JOB, everyMs: REGISTRATION_RECOVERY_EVERY_MS, run: async () => void (await app.recoverRegistrations()) }],
    }
  },
})
