import { pgSchema } from 'drizzle-orm/pg-core'

/** The platform's own tables (no game rule): job runs, token revocations. */
export const platformSchema = pgSchema('platform')
