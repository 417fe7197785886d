import { expect } from 'vitest'

/** An answer is a problem+json refusal with this status, and this problem type when one is named. */
export function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): { type: string } }, status: number, slug?: string): void {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  if (slug) expect(res.json().type).toBe(`/problems/${slug}`)
}
