import { defineConfig } from 'vitest/config'

/**
 * The black-box API suites run on the embedded database, on PostgreSQL when TEST_DATABASE_URL is
 * set, and the event-driven ones also over NATS when TEST_NATS_URL is set.
 */
const apiProject = (backend: 'embedded' | 'postgres', bus: 'in-process' | 'nats' = 'in-process', include = ['test/**/*.test.ts']) => ({
  test: {
    name: bus === 'nats' ? 'api-postgres-nats' : `api-${backend}`,
    include,
    globalSetup: ['test/support/global-setup.ts'],
    env: { QL_TEST_BACKEND: backend, QL_TEST_BUS: bus },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      apiProject('embedded'),
      ...(process.env.TEST_DATABASE_URL ? [apiProject('postgres')] : []),
      // The suites whose flows cross contexts by events, again over NATS JetStream.
      ...(process.env.TEST_DATABASE_URL && process.env.TEST_NATS_URL ? [apiProject('postgres', 'nats', ['test/habits.test.ts'])] : []),
    ],
  },
})
