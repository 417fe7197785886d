/**
 * Renders a Helm chart's templates as `helm template` would, for the subset of Go templates and
 * Sprig functions deploy/helm/questline uses, so CI can hold the rendered manifests against the
 * code without Helm (scripts/deploy-files.test.ts). Anything outside the subset throws, naming it:
 * a template that uses more needs this renderer taught first, not a silent wrong rendering.
 *
 * The subset: text with `{{ }}` actions (`{{-` and `-}}` trim whitespace), comments, `define` and
 * `include`, `if` / `else if` / `else`, `range` over maps (sorted keys, as Go) and lists with
 * `$key, $value :=`, `$name := pipeline`, pipelines of the functions in FUNCTIONS, field chains on
 * `.`, `$` and variables, string and number literals, and parenthesized pipelines.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse, stringify } from 'yaml'

type Value = unknown
type Scope = Map<string, Value>

interface Node {
  kind: 'text' | 'action' | 'if' | 'range' | 'define'
  text?: string
  pipeline?: string
  /** `if`: [condition, body] pairs, the last one's condition undefined for `else`. */
  branches?: { condition: string | undefined; body: Node[] }[]
  /** `range`: the variables it declares, and its body (and `else` body). */
  vars?: string[]
  body?: Node[]
  name?: string
}

interface Token { kind: 'text' | 'action'; text: string }

/** Text and actions, with the trim markers applied to the text around them. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let at = 0
  while (at < source.length) {
    const open = source.indexOf('{{', at)
    if (open === -1) {
      tokens.push({ kind: 'text', text: source.slice(at) })
      break
    }
    const close = source.indexOf('}}', open)
    if (close === -1) throw new Error(`unclosed action at ${open}`)
    let text = source.slice(at, open)
    let inner = source.slice(open + 2, close)
    if (inner.startsWith('- ') || inner.startsWith('-\n')) text = text.replace(/\s+$/, '')
    tokens.push({ kind: 'text', text })
    const trimAfter = inner.endsWith(' -') || inner.endsWith('\n-')
    inner = inner.replace(/^-\s/, '').replace(/\s-$/, '').trim()
    at = close + 2
    if (trimAfter) while (at < source.length && /\s/.test(source[at]!)) at++
    if (!(inner.startsWith('/*') && inner.endsWith('*/'))) tokens.push({ kind: 'action', text: inner })
  }
  return tokens.filter((t) => t.kind === 'action' || t.text !== '')
}

/** The tree of a template's tokens; `stop` ends a block (`end`, `else …`). */
function parseNodes(tokens: Token[], at: { i: number }, stops: RegExp | undefined): { nodes: Node[]; stoppedBy?: string } {
  const nodes: Node[] = []
  while (at.i < tokens.length) {
    const token = tokens[at.i++]!
    if (token.kind === 'text') {
      nodes.push({ kind: 'text', text: token.text })
      continue
    }
    const action = token.text
    if (stops?.test(action)) return { nodes, stoppedBy: action }
    const [keyword] = action.split(/\s+/, 1)
    if (keyword === 'if') {
      const branches: Node['branches'] = []
      let condition: string | undefined = action.slice(3)
      for (;;) {
        const { nodes: body, stoppedBy } = parseNodes(tokens, at, /^(end|else)\b/)
        branches.push({ condition, body })
        if (stoppedBy === undefined) throw new Error(`if ${condition} has no end`)
        if (stoppedBy === 'end') break
        if (condition === undefined) throw new Error('else after else')
        condition = stoppedBy.startsWith('else if ') ? stoppedBy.slice(8) : undefined
      }
      nodes.push({ kind: 'if', branches })
    } else if (keyword === 'range') {
      const m = /^range\s+(?:(\$\w+)\s*(?:,\s*(\$\w+)\s*)?:=\s*)?(.+)$/.exec(action)
      if (!m) throw new Error(`range: ${action}`)
      const { nodes: body, stoppedBy } = parseNodes(tokens, at, /^end$/)
      if (stoppedBy === undefined) throw new Error(`${action} has no end`)
      nodes.push({ kind: 'range', vars: [m[1], m[2]].filter((v): v is string => v !== undefined), pipeline: m[3]!, body })
    } else if (keyword === 'define') {
      const name = /^define\s+"([^"]+)"$/.exec(action)?.[1]
      if (!name) throw new Error(`define: ${action}`)
      const { nodes: body } = parseNodes(tokens, at, /^end$/)
      nodes.push({ kind: 'define', name, body })
    } else if (['with', 'block', 'template', 'break', 'continue'].includes(keyword!)) {
      throw new Error(`'${keyword}' is outside the subset scripts/helm-template.ts renders`)
    } else {
      nodes.push({ kind: 'action', pipeline: action })
    }
  }
  return { nodes }
}

/** Go's truth: false, 0, nil, and empty strings, lists and maps are false. */
const truthy = (v: Value) => !(v === undefined || v === null || v === false || v === 0 || v === '' ||
  (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0))

const indentLines = (n: number, s: string) => s.split('\n').map((line) => (line === '' ? line : ' '.repeat(n) + line)).join('\n')

function toYaml(v: Value): string {
  if (v === undefined || v === null) return 'null'
  return stringify(v, { lineWidth: 0 }).replace(/\n$/, '')
}

export class Chart {
  private readonly defines = new Map<string, Node[]>()

  /** `values` are the chart's values.yaml with `overrides` merged over it (maps deeply, as `--set`). */
  constructor(private readonly dir: string, private readonly release = { Name: 'questline', Namespace: 'default', Service: 'Helm' }) {}

  /** Every template (helpers first), rendered: file name → text. */
  render(overrides: Record<string, Value> = {}): Map<string, string> {
    const chart = parse(readFileSync(path.join(this.dir, 'Chart.yaml'), 'utf8')) as Record<string, Value>
    const values = merge(parse(readFileSync(path.join(this.dir, 'values.yaml'), 'utf8')) as Record<string, Value>, overrides)
    const root = {
      Values: values, Release: this.release,
      Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    }
    const files = readdirSync(path.join(this.dir, 'templates')).filter((f) => /\.(ya?ml|tpl)$/.test(f)).sort()
    const trees = new Map(files.map((f) => [f, parseNodes(tokenize(readFileSync(path.join(this.dir, 'templates', f), 'utf8')), { i: 0 }, undefined).nodes]))
    for (const nodes of trees.values()) for (const n of nodes) if (n.kind === 'define') this.defines.set(n.name!, n.body!)
    const out = new Map<string, string>()
    for (const [file, nodes] of trees) if (!file.startsWith('_')) out.set(file, this.run(nodes, root, new Map([['$', root]])))
    return out
  }

  /** Every manifest the chart renders, parsed (empty documents left out), typed as the caller reads them. */
  manifests<Manifest extends object = Record<string, unknown>>(overrides: Record<string, Value> = {}): Manifest[] {
    return [...this.render(overrides).values()].flatMap((text) => text.split(/^---\s*$/m))
      .map((doc) => parse(doc) as unknown).filter((doc): doc is Manifest => doc !== null && typeof doc === 'object')
  }

  private run(nodes: Node[], dot: Value, scope: Scope): string {
    let out = ''
    for (const node of nodes) {
      if (node.kind === 'text') out += node.text
      else if (node.kind === 'action') {
        const assign = /^(\$\w+)\s*:=\s*(.+)$/.exec(node.pipeline!)
        if (assign) scope.set(assign[1]!, this.pipeline(assign[2]!, dot, scope))
        else out += printed(this.pipeline(node.pipeline!, dot, scope))
      } else if (node.kind === 'if') {
        const branch = node.branches!.find((b) => b.condition === undefined || truthy(this.pipeline(b.condition, dot, scope)))
        if (branch) out += this.run(branch.body, dot, new Map(scope))
      } else if (node.kind === 'range') {
        const over = this.pipeline(node.pipeline!, dot, scope)
        const entries: [Value, Value][] = Array.isArray(over) ? over.map((v, i) => [i, v])
          : over && typeof over === 'object' ? Object.keys(over).sort().map((k) => [k, (over as Record<string, Value>)[k]])
            : []
        for (const [key, value] of entries) {
          const inner = new Map(scope)
          if (node.vars!.length === 2) inner.set(node.vars![0]!, key).set(node.vars![1]!, value)
          else if (node.vars!.length === 1) inner.set(node.vars![0]!, value)
          out += this.run(node.body!, value, inner)
        }
      }
    }
    return out
  }

  /** `cmd | cmd …`: each command's result is the next one's last argument. */
  private pipeline(text: string, dot: Value, scope: Scope): Value {
    let result: Value
    splitOutside(text, '|').forEach((command, i) => {
      const [head, ...rest] = splitOutside(command.trim(), ' ').filter((w) => w !== '')
      const isFunction = /^[a-zA-Z]\w*$/.test(head!) && head !== 'true' && head !== 'false'
      if (!isFunction) {
        if (rest.length > 0 || i > 0) throw new Error(`${head} is not a function: ${text}`)
        result = this.operand(head!, dot, scope)
        return
      }
      const args = rest.map((w) => this.operand(w, dot, scope))
      result = this.call(head!, i > 0 ? [...args, result] : args)
    })
    return result
  }

  private call(name: string, args: Value[]): Value {
    if (name === 'include') {
      const body = this.defines.get(args[0] as string)
      if (!body) throw new Error(`include of an undefined template ${String(args[0])}`)
      return this.run(body, args[1], new Map([['$', args[1]]]))
    }
    const fn = FUNCTIONS[name]
    if (!fn) throw new Error(`function '${name}' is outside the subset scripts/helm-template.ts renders`)
    return fn(...args)
  }

  private operand(word: string, dot: Value, scope: Scope): Value {
    if (word.startsWith('(') && word.endsWith(')')) return this.pipeline(word.slice(1, -1), dot, scope)
    if (word.startsWith('"')) return JSON.parse(word) as string
    if (/^-?\d+$/.test(word)) return Number(word)
    if (word === 'true' || word === 'false') return word === 'true'
    const chain = /^(\$\w*|)((?:\.\w+)*|\.)$/.exec(word)
    if (!chain) throw new Error(`not an operand: ${word}`)
    let value: Value = chain[1] === '' ? dot : scope.get(chain[1]!)
    if (chain[1] !== '' && !scope.has(chain[1]!)) throw new Error(`undefined variable ${chain[1]}`)
    for (const field of chain[2]!.split('.').filter((f) => f !== '')) {
      value = value && typeof value === 'object' ? (value as Record<string, Value>)[field] : undefined
    }
    return value
  }
}

/** Splits at `separator` outside quotes and parentheses. */
function splitOutside(text: string, separator: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quoted = false
  let current = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '"' && text[i - 1] !== '\\') quoted = !quoted
    if (!quoted && c === '(') depth++
    if (!quoted && c === ')') depth--
    if (!quoted && depth === 0 && c === separator) {
      parts.push(current)
      current = ''
    } else current += c
  }
  return [...parts, current]
}

const printed = (v: Value) => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v))

/** The Sprig and Helm functions the chart uses, with their argument order (the piped value last). */
const FUNCTIONS: Record<string, (...args: Value[]) => Value> = {
  quote: (v) => JSON.stringify(printed(v)),
  upper: (v) => printed(v).toUpperCase(),
  default: (fallback, v) => (truthy(v) ? v : fallback),
  toYaml,
  nindent: (n, s) => '\n' + indentLines(n as number, printed(s)),
  indent: (n, s) => indentLines(n as number, printed(s)),
  dict: (...kv) => Object.fromEntries(Array.from({ length: kv.length / 2 }, (_, i) => [kv[2 * i] as string, kv[2 * i + 1]])),
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  not: (v) => !truthy(v),
  and: (...vs) => vs.every(truthy),
  or: (...vs) => vs.some(truthy),
  mul: (...ns) => ns.reduce((a: number, b) => a * Number(b), 1),
  add: (...ns) => ns.reduce((a: number, b) => a + Number(b), 0),
  toJson: (v) => JSON.stringify(v),
  required: (message, v) => {
    if (!truthy(v)) throw new Error(String(message))
    return v
  },
}

function merge(base: Record<string, Value>, over: Record<string, Value>): Record<string, Value> {
  const out = { ...base }
  for (const [k, v] of Object.entries(over)) {
    const b = out[k]
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)
      ? merge(b as Record<string, Value>, v as Record<string, Value>) : v
  }
  return out
}
