import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { webProjectSkipReason } from './test/web/support/chromium.js'

/**
 * The black-box API suites run on the embedded database, on PostgreSQL when TEST_DATABASE_URL is
 * set, and the event-driven ones also over NATS when TEST_NATS_URL is set.
 */
const apiProject = (backend: 'embedded' | 'postgres', bus: 'in-process' | 'nats' = 'in-process', include = ['test/**/*.test.ts']) => ({
  test: {
    name: bus === 'nats' ? 'api-postgres-nats' : `api-${backend}`,
    include,
    // The launcher test starts split services (split project); the fault tests and the runtime tree have their own projects.
    exclude: ['test/web/**', 'test/launcher.test.ts', 'test/split-faults.test.ts', 'test/rolling-restart.test.ts', 'test/runtime-tree.test.ts', '**/node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    env: { QL_TEST_BACKEND: backend, QL_TEST_BUS: bus },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})

/**
 * The same black-box suites against split services: every context its own process (avatar and
 * tracking twice) behind the gateway, on PostgreSQL and NATS. One file at a time: the files share
 * the clusters the global setup starts (one per distinct set of settings).
 */
const splitProject = {
  test: {
    name: 'api-split',
    include: ['test/**/*.test.ts'],
    // Left out: suites that reach under the API (storage, rank tallies, experience board order, job slots, token
    // revocations, signing keys, retention), or point one process at a stand-in (marketplace faults) or a web build of
    // their own (web serving), or run all-in-one processes of their own (crash batching, operator commands),
    // or play the game's rules through a simulated year (the same rules in every shape; hours over HTTP),
    // or serve a runtime tree of their own (its project).
    exclude: ['test/simulated-year.test.ts', 'test/storage.test.ts', 'test/guild-rank.test.ts', 'test/experience-board-order.test.ts', 'test/job-slots.test.ts', 'test/token-revocations.test.ts', 'test/signing-keys.test.ts', 'test/retention.test.ts', 'test/guild-chat-retention.test.ts', 'test/marketplace-faults.test.ts',
      'test/web-serving.test.ts', 'test/gateway.test.ts', 'test/split-faults.test.ts', 'test/rolling-restart.test.ts', 'test/crash-batching.test.ts', 'test/operator.test.ts', 'test/scheduled-backup.test.ts', 'test/runtime-tree.test.ts', 'test/web/**'],
    globalSetup: ['test/support/global-setup.ts'],
    env: { QL_TEST_BACKEND: 'postgres', QL_TEST_BUS: 'nats', QL_TEST_TARGET: 'split' },
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
}

/**
 * Split services under faults: processes killed and restarted, the NATS server stopped and started
 * again, every process restarted in a rolling restart, while requests flow. Not opt-in: each test
 * starts one cluster; the rolling restart takes longest (fourteen processes started twice).
 */
const splitFaultsProject = {
  test: {
    name: 'split-faults',
    include: ['test/split-faults.test.ts', 'test/rolling-restart.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    env: { QL_TEST_BACKEND: 'postgres', QL_TEST_BUS: 'nats', QL_TEST_TARGET: 'split', QL_TEST_OWN_CLUSTERS: 'true' },
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
}

/**
 * The runtime tree (npm run build:runtime) made once and served from a temporary directory as the
 * image serves it: on the embedded database, and one context alone on PostgreSQL when
 * TEST_DATABASE_URL is set. Its processes make their own data places: no global setup.
 */
const runtimeTreeProject = {
  test: {
    name: 'runtime-tree',
    include: ['test/runtime-tree.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
}

/**
 * The web app in Chromium against the platform on a real port; one file at a time. Off CI, a
 * machine without Chromium leaves it out with one line; under CI its global setup fails instead.
 */
const webSkipped = webProjectSkipReason()
if (webSkipped) console.warn(webSkipped)
const webProject = {
  test: {
    name: 'web',
    include: ['test/web/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts', 'test/web/support/global-setup.ts'],
    env: { QL_TEST_BACKEND: 'embedded', QL_TEST_BUS: 'in-process' },
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // A page waits on a server that shares two cores with the other projects' runs:
    // what the page must show within a second on an idle machine may take several here.
    expect: { poll: { timeout: 10_000 } },
  },
}

export default defineConfig({
  test: {
    // Two files at a time in the projects that allow it (vitest's default is one fewer than the
    // cores: one, on two). A file there is mostly one process waiting on itself or the database:
    // a second keeps both cores busy. The split, fault and web projects stay one file at a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'] } },
      apiProject('embedded'),
      ...(process.env.TEST_DATABASE_URL ? [apiProject('postgres')] : []),
      // The suites whose flows cross contexts by events, again over NATS JetStream.
      ...(process.env.TEST_DATABASE_URL && process.env.TEST_NATS_URL ? [apiProject('postgres', 'nats', [
        'test/habits.test.ts', 'test/battles.test.ts', 'test/quests.test.ts', 'test/quest-outcomes.test.ts', 'test/quest-schedules.test.ts',
        'test/quest-join-recovery.test.ts', 'test/event-metrics.test.ts', 'test/event-contracts.test.ts',
      ])] : []),
      // TEST_SPLIT=false leaves it out of a quick local run.
      ...(process.env.TEST_DATABASE_URL && process.env.TEST_NATS_URL && process.env.TEST_SPLIT !== 'false' ? [splitProject] : []),
      ...(process.env.TEST_DATABASE_URL && process.env.TEST_NATS_URL ? [splitFaultsProject] : []),
      runtimeTreeProject,
      ...(webSkipped ? [] : [webProject]),
    ],
  },
})
