import type { EdgeDraft } from '../../contracts/events/edge.js'
import type { RevocationList } from '../../platform/auth/revocations.js'
import type { AccessTokens } from '../../platform/auth/tokens.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { Outbox } from '../../platform/events/outbox.js'
import { pruning } from '../../platform/jobs/retention.js'
import { contextModule } from '../../platform/module.js'
import type { AvatarClient } from '../avatar/client.js'
import { ExportApp, type ExportPorts } from './app/export-app.js'
import { IdentityApp, type IdentityDeps } from './app/identity-app.js'
import { REGISTRATION_RECOVERY_EVERY_MS } from './domain/rules.js'
import { exportRoutes } from './http/export-routes.js'
import { identityRoutes } from './http/routes.js'
import { loginFailureRepo, refreshTokenRepo, registrationRepo } from './store/repositories.js'
import { loginFailures, outbox as outboxTable, refreshTokens, registrations } from './store/tables.js'
import { EDGE_PROBLEMS } from './http/problem-types.js'

export const RECOVER_REGISTRATIONS_JOB = 'edge.recover-registrations'

/**
 * The edge: accounts, logins and tokens under /auth, the player web app at /, and (split
 * services) the gateway to the other contexts' processes (`gateway.ts`).
 */
export const edgeModule = contextModule({
  name: 'edge',
  problemTypes: EDGE_PROBLEMS,
  // Registration provisions an avatar; a player's export gathers the parts of every context that holds some.
  calls: ['avatar', 'tracking', 'quest', 'guild', 'marketplace', 'live'],
  routes: (h: { app: IdentityApp; exports: ExportApp; tokens: AccessTokens }) => ({
    rootRoutes: async (f) => {
      await f.register(identityRoutes, { app: h.app, tokens: h.tokens })
      await f.register(exportRoutes, { app: h.exports, tokens: h.tokens })
    },
  }),
  build(deps: {
    database: Database
    clock: Clock
    tokens: AccessTokens
    revocations: RevocationList
    config: IdentityDeps['config']
    ports: { avatar: AvatarClient } & ExportPorts
  }) {
    const outbox = new Outbox<EdgeDraft>('edge', outboxTable, deps.clock, deps.database)
    const { database, clock, tokens, revocations, config } = deps
    const failureWindowMs = config.loginFailureWindowSeconds * 1000
    const app = new IdentityApp({ database, clock, tokens, revocations, config, avatars: deps.ports.avatar, outbox })
    // The ports are read when an export runs (a process that does not serve the edge never asks them).
    const exports = new ExportApp({ database, clock, ports: deps.ports })
    return {
      handlers: { app, exports, tokens },
      outbox,
      jobs: [{ name: RECOVER_REGISTRATIONS_JOB, everyMs: REGISTRATION_RECOVERY_EVERY_MS, run: async () => void (await app.recoverRegistrations()) }],
      prune: [
        pruning(registrations, (h, limit) => registrationRepo.deleteSettledBefore(database.db, h.retention, limit)),
        // An expired token is refused whatever its row says (one presented after its row is gone is
        // refused as unknown, and revokes no family).
        pruning(refreshTokens, (h, limit) => refreshTokenRepo.deleteExpiredBefore(database.db, h.retention, limit)),
        // Failures count only within the throttle's window; logins also forget older ones as failures come.
        pruning(loginFailures, (h, limit) => loginFailureRepo.deleteUpTo(database.db, new Date(h.now.getTime() - failureWindowMs), limit)),
      ],
    }
  },
})
