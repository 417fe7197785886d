/** The platform's heavier dependencies, loaded on their own to time them (bench/startup-phases.ts). */
export const PLATFORM_PACKAGES = [
  '@electric-sql/pglite', 'pg', 'drizzle-orm', 'drizzle-orm/pg-core', 'drizzle-orm/pglite', 'drizzle-orm/node-postgres', 'fastify',
  '@fastify/swagger', '@fastify/swagger-ui', '@fastify/static', '@fastify/reply-from', 'fastify-plugin', 'typebox', 'ajv', 'ajv-formats',
  'jose', '@nats-io/transport-node', '@nats-io/jetstream', '@node-rs/argon2', 'prom-client', 'pino',
]

/** A plain-node ES module (for `node --input-type=module -e`) that loads them and prints the milliseconds it took. */
export const loadPackagesScript = () =>
  `const t = performance.now(); for (const p of ${JSON.stringify(PLATFORM_PACKAGES)}) await import(p); console.log(JSON.stringify({ ms: Math.round(performance.now() - t) }))`
