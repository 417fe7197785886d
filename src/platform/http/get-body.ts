import type { IncomingMessage } from 'node:http'
import type { ValidateFunction } from 'ajv'
import type { FastifyRequest } from 'fastify'
import { AppError, BadRequest } from '../errors.js'
import { refuseUnstorableText, toFieldErrors } from './validation.js'

export const BODY_LIMIT = 64 * 1024

/**
 * Reads a JSON body sent with GET, which fastify never parses (the contract's avatar search
 * takes its criteria that way). `undefined` when there is no body.
 */
export async function readGetBody(raw: IncomingMessage): Promise<unknown> {
  const declared = Number(raw.headers['content-length'] ?? 0)
  if (declared === 0 && raw.headers['transfer-encoding'] === undefined) return undefined
  if (declared > BODY_LIMIT) throw new PayloadTooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of raw) {
    size += (chunk as Buffer).length
    if (size > BODY_LIMIT) throw new PayloadTooLarge()
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    throw new BadRequest('The request body is not valid JSON.', 'malformed-json')
  }
}

/** Route config of a GET that takes JSON criteria in its body: their validator. */
export interface GetBodyConfig {
  getBody?: ValidateFunction
}

/**
 * The GET body of a request, checked against its route's `config.getBody` validator. The
 * owning route and a gateway forwarding to it both read it so, and refuse alike.
 */
export async function readValidGetBody(req: FastifyRequest): Promise<unknown> {
  const body = await readGetBody(req.raw)
  refuseUnstorableText(body, 'body')
  const validate = (req.routeOptions.config as GetBodyConfig).getBody
  if (body !== undefined && validate && !validate(body)) {
    const errors = toFieldErrors('body', validate.errors ?? [])
    throw new BadRequest(errors.map((e) => `${e.path} ${e.message}`).join('; '), 'validation', errors)
  }
  return body
}

class PayloadTooLarge extends AppError {
  constructor() {
    super(413, 'payload-too-large', 'Payload too large', `Request bodies are limited to ${BODY_LIMIT} bytes.`)
  }
}
