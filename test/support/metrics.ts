/** The value of one sample of a Prometheus text exposition (`name{label} value`); undefined when absent. */
export function sample(text: string, name: string, label: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${label}}`))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}
