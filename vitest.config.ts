import { defineConfig } from 'vitest/config'

/** The black-box API suites run on the embedded database, and on PostgreSQL when TEST_DATABASE_URL is set. */
const apiProject = (backend: 'embedded' | 'postgres') => ({
  test: {
    name: `api-${backend}`,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    env: { QL_TEST_BACKEND: backend },
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
    ],
  },
})
