import type { IncomingMessage } from 'node:http'
import { Transform } from 'node:stream'
import type { ValidateFunction } from 'ajv'
import type { FastifyRequest } from 'fastify'
import { AppError, InvalidRequest } from '../errors.js'
import { refuseUnstorableText, toFieldErrors } from './validation.js'

export const BODY_LIMIT = 64 * 1024

/**
 * Reads a JSON body sent with GET, which fastify never parses (the contract's avatar search
 * takes its criteria that way). `undefined` when there is no body.
 */
async function readGetBody(raw: IncomingMessage): Promise<unknown> {
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
    throw new MalformedJson()
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
  if (body !== undefined && validate && !validate(body)) throw new InvalidRequest(toFieldErrors('body', validate.errors ?? []))
  return body
}

/** As fastify answers a body it cannot parse. */
class MalformedJson extends AppError {
  constructor() {
    super(400, 'malformed-json', 'Malformed JSON', 'The request body is not valid JSON.', [{ path: 'body', message: 'must be valid JSON' }])
  }
}

/**
 * A body to stream on to another process, held to the same limit as a parsed one (its route's,
 * `limit`): a declared length over it is refused at once, a chunked body once it passes it
 * (`tooLarge()` then says so).
 */
export function limitedBody(raw: IncomingMessage, limit = BODY_LIMIT): { stream: Transform; tooLarge(): boolean } {
  if (Number(raw.headers['content-length'] ?? 0) > limit) throw new PayloadTooLarge(limit)
  let size = 0
  let over = false
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (size <= limit) return done(null, chunk)
      over = true
      // The rest is read and dropped, as fastify does, so the client can finish sending and read the 413.
      raw.unpipe(stream)
      raw.resume()
      done(new PayloadTooLarge(limit))
    },
  })
  raw.on('error', (e) => stream.destroy(e))
  return { stream: raw.pipe(stream), tooLarge: () => over }
}

export class PayloadTooLarge extends AppError {
  constructor(limit = BODY_LIMIT) {
    super(413, 'payload-too-large', 'Payload too large', `Request bodies are limited to ${limit} bytes.`)
  }
}
