import { randomBytes, randomUUID } from 'node:crypto'

export const newId = (): string => randomUUID()

/** An opaque, URL-safe secret (refresh tokens). */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url')
