import { Type } from 'typebox'

/** HAL-style links: relation → {href}, the href a path on this server. */
export type Links = Record<string, { href: string }>

export const LinksSchema = Type.Record(Type.String(), Type.Object({ href: Type.String() }), {
  description: 'Hypermedia links: relation name → {href}',
})

export function links(entries: Record<string, string>): Links {
  const out: Links = {}
  for (const [rel, href] of Object.entries(entries)) out[rel] = { href }
  return out
}
