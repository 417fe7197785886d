import type { FastifyPluginAsync } from 'fastify'
import type { Config } from '../../config.js'
import type { RevocationList } from '../../platform/auth/revocations.js'
import type { AccessTokens } from '../../platform/auth/tokens.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { Outbox } from '../../platform/events/outbox.js'
import type { AvatarClient } from '../avatar/client.js'
import { IdentityApp } from './app/identity-app.js'
import { identityRoutes } from './http/routes.js'
import type { Job } from '../../platform/jobs/scheduler.js'
import { REGISTRATION_RECOVERY_EVERY_MS } from './domain/rules.js'
import { outbox as outboxTable } from './store/tables.js'

export const RECOVER_REGISTRATIONS_JOB = 'identity.recover-registrations'

/** The edge's identity context: accounts, logins and tokens under /auth. */
export function identityContext(deps: {
  database: Database
  clock: Clock
  tokens: AccessTokens
  revocations: RevocationList
  avatars: AvatarClient
  config: Config
}) {
  const outbox = new Outbox('identity', outboxTable, deps.clock, deps.database)
  const app = new IdentityApp({ ...deps, outbox })
  const routes: FastifyPluginAsync = async (f) => {
    await f.register(identityRoutes, { app, tokens: deps.tokens })
  }
  const jobs: Job[] = [{ name: RECOVER_REGISTRATIONS_JOB, everyMs: REGISTRATION_RECOVERY_EVERY_MS, run: async () => void (await app.recoverRegistrations()) }]
  return { name: 'identity' as const, routes, outbox, jobs }
}
