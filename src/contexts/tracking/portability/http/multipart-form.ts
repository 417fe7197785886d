/**
 * A multipart/form-data body (RFC 7578), read whole from its bytes into its fields' text: what an
 * HTML form uploading files, or `curl -F`, sends. Each part is a field named by its
 * Content-Disposition; a file's name and type are not needed (the field's name says what it is).
 * Bounded: at most `partsMax` parts, each with at most `headerBytesMax` bytes of headers; the body
 * itself is bounded by the route's body limit before it gets here.
 */
import { BadRequest, InvalidRequest } from '../../../../platform/errors.js'
import { ImportTooLarge } from '../domain/errors.js'

export interface FormLimits {
  partsMax: number
  headerBytesMax: number
}

const CRLF = Buffer.from('\r\n')
const HEADERS_END = Buffer.from('\r\n\r\n')

const malformed = (message: string, path = 'body') =>
  new BadRequest(`The body is not multipart/form-data that can be read: it ${message}.`, 'malformed-request', [{ path, message }])

/** The boundary a Content-Type names (`multipart/form-data; boundary=…`, quoted or not). */
export function boundaryOf(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType)
  const boundary = m?.[1] ?? m?.[2]
  if (!boundary) throw malformed('names no boundary (1–70 characters)', 'headers/content-type')
  return boundary
}

/** The field a part's headers name (Content-Disposition: form-data; name="…"). */
function fieldNameOf(headers: string): string {
  const disposition = headers.split('\r\n').find((line) => /^content-disposition\s*:/i.test(line))
  const m = disposition && /;\s*name=(?:"((?:[^"\\]|\\.)*)"|([^\s;"]+))/i.exec(disposition)
  if (!m) throw malformed('has a part with no Content-Disposition naming its field')
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!
}

/** Each field's text (UTF-8), by its name; a field sent twice is refused. */
export function readForm(body: Buffer, contentType: string, limits: FormLimits): Record<string, string> {
  const delimiter = Buffer.from(`--${boundaryOf(contentType)}`)
  const nextDelimiter = Buffer.concat([CRLF, delimiter])
  const fields = new Map<string, string>()
  // Anything before the first delimiter is a preamble, which a reader ignores.
  let at = body.indexOf(delimiter)
  if (at < 0) throw malformed('holds no part')
  at += delimiter.length
  for (;;) {
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return Object.fromEntries(fields)
    while (body[at] === 0x20 || body[at] === 0x09) at++
    if (!body.subarray(at, at + 2).equals(CRLF)) throw malformed('has a boundary line that does not end the line')
    // The boundary line's end starts the part's headers, which end with an empty line.
    const headersEnd = body.indexOf(HEADERS_END, at)
    if (headersEnd < 0 || headersEnd - at > limits.headerBytesMax) throw malformed(`has a part whose headers do not end within ${limits.headerBytesMax} bytes`)
    const name = fieldNameOf(body.toString('utf8', at + 2, headersEnd))
    const start = headersEnd + HEADERS_END.length
    const end = body.indexOf(nextDelimiter, start)
    if (end < 0) throw malformed('ends before its closing boundary')
    if (fields.has(name)) throw new InvalidRequest([{ path: `body/${name}`, message: 'must be sent once' }])
    if (fields.size === limits.partsMax) throw new ImportTooLarge(`A multipart import takes at most ${limits.partsMax} parts.`, 'body')
    fields.set(name, body.toString('utf8', start, end))
    at = end + nextDelimiter.length
  }
}
