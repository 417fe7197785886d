/** Plain-text tables and numbers for the benches' reports. */

/** A table with a header rule; `right` says which columns are right-aligned. */
export function table(header: string[], body: (string | number)[][], right: boolean[]): string {
  const cells = [header, ...body.map((r) => r.map(String))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)))
  const line = (r: string[]) => r.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ').trimEnd()
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.slice(1).map(line)].join('\n')
}

/** A number with thousands separators and `digits` decimals; '' for none. */
export const fmt = (n: number | undefined, digits = 0) =>
  (n === undefined || Number.isNaN(n) ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }))
