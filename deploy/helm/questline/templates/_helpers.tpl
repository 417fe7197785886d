{{/*
Helpers. A process is named by its component: "gateway" (serve --only edge) or its context's name.
The ones taking a dict get: root (the chart's top scope), component, and for a workload: only
(what it serves) and process (its values: owners, replicas, resources, autoscaling). A key left out
of a process's values reads as its zero (no owners, no autoscaler), never as a nil pointer.
*/}}

{{- define "questline.labels" -}}
{{ include "questline.selector" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: questline
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "questline.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* The image: image.tag, else the chart's appVersion. */}}
{{- define "questline.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "questline.secretName" -}}
{{ .Values.existingSecret | default .Release.Name }}
{{- end }}

{{/* Whether a process has owners (a StatefulSet), and whether an autoscaler scales it. */}}
{{- define "questline.owned" -}}
{{ dig "owners" false .process }}
{{- end }}
{{- define "questline.autoscaled" -}}
{{ dig "autoscaling" "enabled" false .process }}
{{- end }}

{{/* The headless Service of a context with owners: each replica's DNS name is <pod>.<this>. */}}
{{- define "questline.headless" -}}
{{ .root.Release.Name }}-{{ .component }}-headless
{{- end }}

{{/* The domain its replicas' names end with: <headless>.<namespace>.svc.<clusterDomain>. */}}
{{- define "questline.replicaDomain" -}}
{{ include "questline.headless" . }}.{{ .root.Release.Namespace }}.svc.{{ .root.Values.clusterDomain }}
{{- end }}

{{/*
Where a context runs (UPSTREAM_<CONTEXT>): with owners, each replica by its stable DNS name, so
requests about an aggregate reach its owner and each replica finds itself there (ADVERTISE_URL);
otherwise its Service, which spreads requests over its replicas.
*/}}
{{- define "questline.upstream" -}}
{{- if eq (include "questline.owned" .) "true" -}}
{{- $urls := list -}}
{{- range $i := until (int .process.replicas) -}}
{{- $urls = append $urls (printf "http://%s-%s-%d.%s:%v" $.root.Release.Name $.component $i (include "questline.replicaDomain" $) $.root.Values.port) -}}
{{- end -}}
{{ join "," $urls }}
{{- else -}}
http://{{ .root.Release.Name }}-{{ .component }}:{{ .root.Values.port }}
{{- end -}}
{{- end }}

{{/* The uid of the image's unprivileged user (node), which owns /data. */}}
{{- define "questline.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
fsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "questline.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end }}

{{/*
The settings of every serving process (docs/configuration.md): the database and the bus, the
signing keys, and where each context runs.
*/}}
{{- define "questline.env" -}}
- name: PORT
  value: {{ .Values.port | quote }}
- name: METRICS_PORT
  value: {{ .Values.metricsPort | quote }}
- name: DRAIN_TIMEOUT_MS
  value: {{ .Values.drainTimeoutMs | quote }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: RETENTION_DAYS
  value: {{ .Values.retentionDays | quote }}
- name: TRUST_PROXY
  value: {{ .Values.trustProxy | quote }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "questline.secretName" . }}
      key: database-url
- name: DATABASE_POOL_SIZE
  value: {{ .Values.database.poolSize | quote }}
- name: NATS_URL
  value: {{ .Values.nats.url | quote }}
- name: NATS_STREAM
  value: {{ .Values.nats.stream | quote }}
- name: NATS_SUBJECT_PREFIX
  value: {{ .Values.nats.subjectPrefix | quote }}
- name: JWT_PRIVATE_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "questline.secretName" . }}
      key: jwt-private-key
      optional: true
- name: JWT_PREVIOUS_PUBLIC_KEYS
  valueFrom:
    secretKeyRef:
      name: {{ include "questline.secretName" . }}
      key: jwt-previous-public-keys
      optional: true
{{- range $name, $process := .Values.contexts }}
- name: UPSTREAM_{{ upper $name }}
  value: {{ include "questline.upstream" (dict "root" $ "component" $name "process" $process) | quote }}
{{- end }}
{{- range $name, $value := .Values.env }}
{{- /* A whole number read from YAML is a float64, which Go prints as 2.592e+06: print it whole. */}}
{{- $text := toString $value }}
{{- if and (kindIs "float64" $value) (eq ($value | int64 | float64) $value) }}
{{- $text = $value | int64 | toString }}
{{- end }}
- name: {{ $name }}
  value: {{ $text | quote }}
{{- end }}
{{- end }}
