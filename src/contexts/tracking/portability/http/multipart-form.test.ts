import { describe, expect, test } from 'vitest'
import { AppError } from '../../../../platform/errors.js'
import { readForm } from './multipart-form.js'

const limits = { partsMax: 3, headerBytesMax: 200 }
const TYPE = 'multipart/form-data; boundary=XyZ'
const part = (name: string, text: string, filename?: string) =>
  `--XyZ\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\nContent-Type: text/csv\r\n\r\n${text}\r\n`
const body = (...parts: string[]) => Buffer.from(`preamble\r\n${parts.join('')}--XyZ--\r\n`)

function refusal(b: Buffer, type = TYPE): unknown {
  try {
    readForm(b, type, limits)
  } catch (e) {
    if (e instanceof AppError) return { status: e.status, slug: e.slug, error: e.errors?.[0] }
    throw e
  }
  return undefined
}

describe('a multipart/form-data body', () => {
  test("each field's text by its name: file parts and text parts alike, line breaks and non-ASCII kept", () => {
    expect(readForm(body(part('habits', 'Position,Name\r\n001,Café\n', 'Habits.csv'), part('checkmarks', 'Date,Café,\n')), TYPE, limits))
      .toEqual({ habits: 'Position,Name\r\n001,Café\n', checkmarks: 'Date,Café,\n' })
    expect(readForm(body(part('a', '')), 'multipart/form-data; boundary="XyZ"', limits)).toEqual({ a: '' })
  })

  test('what cannot be read is refused: 400 naming the part of the request, 413 beyond the parts it takes', () => {
    expect(refusal(body(part('a', 'x')), 'multipart/form-data')).toMatchObject({ status: 400, slug: 'malformed-request', error: { path: 'headers/content-type' } })
    expect(refusal(Buffer.from('no parts at all'))).toMatchObject({ status: 400, slug: 'malformed-request', error: { path: 'body' } })
    expect(refusal(Buffer.from(part('a', 'never closed')))).toMatchObject({ status: 400, slug: 'malformed-request' })
    expect(refusal(body('--XyZ\r\nContent-Type: text/csv\r\n\r\nx\r\n'))).toMatchObject({ status: 400, slug: 'malformed-request' })
    expect(refusal(body(`--XyZ\r\nX-Pad: ${'p'.repeat(300)}\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n`))).toMatchObject({ status: 400, slug: 'malformed-request' })
    expect(refusal(body(part('a', '1'), part('a', '2')))).toMatchObject({ status: 400, slug: 'validation', error: { path: 'body/a' } })
    expect(refusal(body(part('a', '1'), part('b', '2'), part('c', '3'), part('d', '4')))).toMatchObject({ status: 413, slug: 'import-too-large' })
  })
})
