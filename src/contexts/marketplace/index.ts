import { Counter, Gauge } from 'prom-client'
import { AvatarCreated, AvatarDeleted } from '../../contracts/events/avatar.js'
import type { MarketplaceDraft } from '../../contracts/events/marketplace.js'
import type { TokenSource } from '../../platform/auth/service-token.js'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import { on } from '../../platform/events/contract.js'
import { exactlyOnce } from '../../platform/events/inbox.js'
import { inboxPruning } from '../../platform/events/retention.js'
import { Outbox } from '../../platform/events/outbox.js'
import type { MetricsSource } from '../../platform/http/metrics.js'
import type { ServiceClientOptions } from '../../platform/http/service-client.js'
import { pruning } from '../../platform/jobs/retention.js'
import { contextModule } from '../../platform/module.js'
import { httpAvatarClient, type AvatarClient } from '../avatar/client.js'
import { MarketplaceApp } from './app/marketplace-app.js'
import { SagaRunner } from './app/saga-runner.js'
import { httpMarketplaceClient, inProcessMarketplaceClient, type MarketplaceClient } from './client.js'
import { RECOVERY_EVERY_MS } from './domain/rules.js'
import { OPEN_STATES } from './domain/saga.js'
import { marketplaceExportRoutes } from './http/export-routes.js'
import { marketplaceRoutes } from './http/routes.js'
import { sagaRepo } from './store/repositories.js'
import { inbox, outbox as outboxTable, sagas as sagaTable } from './store/tables.js'
import { MARKETPLACE_PROBLEMS } from './http/problem-types.js'

export const RECOVER_SAGAS_JOB = 'marketplace.recover-sagas'

interface MarketplaceDeps {
  database: Database
  clock: Clock
  ports: { avatar: AvatarClient }
  /** `avatarUrl` (AVATAR_URL) sends only the sagas' avatar calls over HTTP: fault tests point it at a stand-in. */
  config: { avatarUrl: string | undefined }
  serviceTokens: TokenSource
  serviceCalls: Partial<ServiceClientOptions>
}

/** The marketplace: one shop per avatar, the catalog, and the buy and sell sagas with the avatar. */
export const marketplaceModule = contextModule({
  name: 'marketplace',
  problemTypes: MARKETPLACE_PROBLEMS,
  calls: ['avatar'],
  remotePort: httpMarketplaceClient,
  routes: (app: MarketplaceApp) => ({
    apiRoutes: async (f) => {
      await f.register(marketplaceRoutes, { app })
    },
    internalRoutes: async (f) => {
      await f.register(marketplaceExportRoutes, { app })
    },
  }),
  build(deps: MarketplaceDeps) {
    const { database, clock, config } = deps
    const avatars = config.avatarUrl ? httpAvatarClient(config.avatarUrl, deps.serviceTokens, deps.serviceCalls) : deps.ports.avatar
    const outbox = new Outbox<MarketplaceDraft>('marketplace', outboxTable, clock, database)
    const settled = new Counter({
      name: 'marketplace_sagas_settled_total',
      help: 'Buy and sell saga runs of this process by kind and final state',
      labelNames: ['kind', 'state'],
      registers: [],
    })
    const sagas = new SagaRunner({ database, clock, avatars, outbox, onSettled: (kind, state) => settled.inc({ kind, state }) })
    const app = new MarketplaceApp({ database, clock, avatars, sagas })
    const port: MarketplaceClient = inProcessMarketplaceClient(app, database)
    const metrics: MetricsSource = (registry, reads) => {
      registry.registerMetric(settled)
      const open = reads.sampled('marketplace_sagas_open', () => sagaRepo.countOpen(database.db))
      new Gauge({
        name: 'marketplace_sagas_open',
        help: 'Buy and sell saga runs not yet finished or undone, by state (all processes; as last sampled)',
        labelNames: ['state'],
        registers: [registry],
        collect() {
          const last = open()
          if (!last) return
          const counts = new Map(last.map((c) => [c.state, c.n]))
          for (const state of OPEN_STATES) this.set({ state }, counts.get(state) ?? 0)
        },
      })
    }
    return {
      handlers: app,
      outbox,
      port,
      consumers: [
        on(AvatarCreated, exactlyOnce(database, inbox, clock, (e) => app.onAvatarCreated(e.payload.avatarId, e.payload.ownerId, new Date(e.occurredAt)))),
        on(AvatarDeleted, exactlyOnce(database, inbox, clock, (e) => app.onAvatarDeleted(e.payload.avatarId, new Date(e.occurredAt)))),
      ],
      jobs: [{ name: RECOVER_SAGAS_JOB, everyMs: RECOVERY_EVERY_MS, run: async () => void (await sagas.recover()) }],
      prune: [inboxPruning(database, inbox), pruning(sagaTable, (h, limit) => sagaRepo.deleteSettled(database.db, h.retention, limit))],
      metrics,
    }
  },
})
