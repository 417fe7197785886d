import type { FastifyPluginAsync } from 'fastify'
import { Counter, Gauge } from 'prom-client'
import type { Clock } from '../../platform/clock.js'
import type { Database } from '../../platform/db/database.js'
import type { Subscription } from '../../platform/events/bus.js'
import { exactlyOnce } from '../../platform/events/inbox.js'
import { Outbox } from '../../platform/events/outbox.js'
import type { MetricsSource } from '../../platform/http/metrics.js'
import type { Job } from '../../platform/jobs/scheduler.js'
import type { AvatarClient } from '../avatar/client.js'
import type { AvatarCreated, AvatarDeleted } from '../avatar/events.js'
import { MarketplaceApp } from './app/marketplace-app.js'
import { SagaRunner } from './app/saga-runner.js'
import { RECOVERY_EVERY_MS } from './domain/rules.js'
import { OPEN_STATES } from './domain/saga.js'
import { marketplaceRoutes } from './http/routes.js'
import { sagaRepo } from './store/repositories.js'
import { inbox, outbox as outboxTable } from './store/tables.js'

export const RECOVER_SAGAS_JOB = 'marketplace.recover-sagas'

/** The marketplace: one shop per avatar, the catalog, and the buy and sell sagas with the avatar. */
export function marketplaceContext(deps: { database: Database; clock: Clock; avatars: AvatarClient }) {
  const outbox = new Outbox('marketplace', outboxTable, deps.clock, deps.database)
  const settled = new Counter({
    name: 'marketplace_sagas_settled_total',
    help: 'Buy and sell saga runs of this process by kind and final state',
    labelNames: ['kind', 'state'],
    registers: [],
  })
  const sagas = new SagaRunner({ ...deps, outbox, onSettled: (kind, state) => settled.inc({ kind, state }) })
  const app = new MarketplaceApp({ ...deps, sagas })
  const routes: FastifyPluginAsync = async (f) => {
    await f.register(marketplaceRoutes, { app })
  }

  const once = (handle: Parameters<typeof exactlyOnce>[3]) => exactlyOnce(deps.database, inbox, deps.clock, handle)
  const subscription: Subscription = {
    consumer: 'marketplace',
    handlers: {
      avatar: {
        AvatarCreated: once(async (e) => {
          const { avatarId, ownerId } = (e as AvatarCreated).payload
          await app.onAvatarCreated(avatarId, ownerId, new Date(e.occurredAt))
        }),
        AvatarDeleted: once((e) => app.onAvatarDeleted((e as AvatarDeleted).payload.avatarId, new Date(e.occurredAt))),
      },
    },
  }

  const jobs: Job[] = [{ name: RECOVER_SAGAS_JOB, everyMs: RECOVERY_EVERY_MS, run: async () => void (await sagas.recover()) }]

  const metrics: MetricsSource = (registry) => {
    registry.registerMetric(settled)
    new Gauge({
      name: 'marketplace_sagas_open',
      help: 'Buy and sell saga runs not yet finished or undone, by state (all processes)',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const counts = new Map((await sagaRepo.countOpen(deps.database.db)).map((c) => [c.state, c.n]))
        for (const state of OPEN_STATES) this.set({ state }, counts.get(state) ?? 0)
      },
    })
  }

  return { name: 'marketplace' as const, routes, outbox, subscription, jobs, metrics }
}
