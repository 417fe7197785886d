import { randomBytes, randomUUID } from 'node:crypto'

export const newId = (): string => randomUUID()

/** Whether a string has the shape of a server-made id (a UUID, as the API's `format: uuid` accepts it). */
export const isId = (s: string): boolean => /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(s)

/** An opaque, URL-safe secret (refresh tokens). */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url')
