/**
 * A player's habit data in and out (DESIGN §9.4), a module of the tracking context with layers of
 * its own: importing habits with their history (an export document, a Loop Habit Tracker export),
 * tracking's part of a player's export, and the calendar feed. It builds on the context's habits
 * and settings; the context's index.ts and client.ts wire it.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { TrackingDeps } from '../app/deps.js'
import { CalendarApp } from './app/calendar-app.js'
import { TrackingExport } from './app/export-app.js'
import { ImportApp } from './app/import-app.js'
import { calendarFeedRoutes, calendarRoutes } from './http/calendar-routes.js'
import { trackingExportRoutes } from './http/export-routes.js'
import { importRoutes } from './http/import-routes.js'

export function buildPortability(deps: TrackingDeps) {
  return { exports: new TrackingExport(deps), imports: new ImportApp(deps), calendar: new CalendarApp(deps) }
}

export type Portability = ReturnType<typeof buildPortability>

export function portabilityRoutes(p: Portability) {
  /** Under /api/v1: imports and the calendar feed's address. */
  const apiRoutes: FastifyPluginAsync = async (f) => {
    await f.register(importRoutes, { app: p.imports })
    await f.register(calendarRoutes, { app: p.calendar })
  }
  /** Under /internal/v1: tracking's export pages, for the edge. */
  const internalRoutes: FastifyPluginAsync = async (f) => {
    await f.register(trackingExportRoutes, { exports: p.exports })
  }
  /** The calendar feed answers outside /api/v1: a calendar app fetches it with no token. */
  const rootRoutes: FastifyPluginAsync = async (f) => {
    await f.register(calendarFeedRoutes, { app: p.calendar })
  }
  return { apiRoutes, internalRoutes, rootRoutes }
}
