/**
 * The chart renderer against what Go templates and Helm do for its subset: trimming, ranges in
 * Go's key order, branches, helpers with dicts, pipelines; and a refusal, named, of anything else.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { Chart } from './helm-template.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })))

/** A chart with these values and templates, rendered: template → text. */
function rendered(values: string, templates: Record<string, string>, overrides = {}): Map<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ql-chart-'))
  dirs.push(dir)
  mkdirSync(path.join(dir, 'templates'))
  writeFileSync(path.join(dir, 'Chart.yaml'), 'name: demo\nversion: 1.2.3\nappVersion: "4.5"\n')
  writeFileSync(path.join(dir, 'values.yaml'), values)
  for (const [file, text] of Object.entries(templates)) writeFileSync(path.join(dir, 'templates', file), text)
  return new Chart(dir).render(overrides)
}

test('trim markers, ranges over maps in key order, branches, helpers given a dict, and pipelines render as Helm renders them', () => {
  const out = rendered('items: { b: 2, a: 1 }\ntag: ""\non: true\n', {
    '_helpers.tpl': '{{- define "line" -}}\n{{ .key }}={{ .value | quote }}\n{{- end }}',
    'out.yaml': [
      'image: {{ .Values.tag | default .Chart.AppVersion }}',
      'items:',
      '{{- range $k, $v := .Values.items }}',
      '  {{ include "line" (dict "key" (upper $k) "value" $v) }}',
      '{{- end }}',
      '{{- if not .Values.on }}',
      'off: yes',
      '{{- else if eq .Values.tag "" }}',
      'untagged: {{ mul 2 3 }}',
      '{{- else }}',
      'tagged: yes',
      '{{- end }}',
      'nested:{{ dict "a" (dict "b" 1) | toYaml | nindent 2 }}',
      '{{/* a comment */}}',
    ].join('\n'),
  })
  expect(out.get('out.yaml')).toBe('image: 4.5\nitems:\n  A="1"\n  B="2"\nuntagged: 6\nnested:\n  a:\n    b: 1\n')
  expect(out.has('_helpers.tpl')).toBe(false)
})

test('overrides merge into values.yaml deeply, as --set does', () => {
  const out = rendered('db: { url: "", pool: 10 }\n', { 'out.yaml': '{{ .Values.db.url }} {{ .Values.db.pool }}' }, { db: { url: 'postgres://x' } })
  expect(out.get('out.yaml')).toBe('postgres://x 10')
})

test('what is outside the subset is refused by name, as is a required value left unset', () => {
  expect(() => rendered('', { 'out.yaml': '{{ .Values.x | b64enc }}' })).toThrow("function 'b64enc' is outside the subset")
  expect(() => rendered('', { 'out.yaml': '{{ with .Values.x }}{{ end }}' })).toThrow("'with' is outside the subset")
  expect(() => rendered('url: ""\n', { 'out.yaml': '{{ required "url is required" .Values.url }}' })).toThrow('url is required')
})
