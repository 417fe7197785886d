import type { FastifyBaseLogger } from 'fastify'
import { pino } from 'pino'

export type Logger = FastifyBaseLogger

/** Structured JSON logs; one logger per process, children per request carry the request id. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'questline' } }) as unknown as Logger
}
