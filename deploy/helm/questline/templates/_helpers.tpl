{{/*
Helpers. A process is named by its component: "gateway" (serve --only edge) or its context's name.
The ones taking a dict get: root (the chart's top scope), component, and for a workload: only
(what it serves) and process (its values: replicas, resources, autoscaling).
*/}}

{{- define "questline.labels" -}}
app.kubernetes.io/name: questline
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ .root.Chart.Name }}-{{ .root.Chart.Version }}
{{- end }}

{{- define "questline.selector" -}}
app.kubernetes.io/name: questline
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "questline.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "questline.secretName" -}}
{{ .Values.existingSecret | default .Release.Name }}
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
signing keys, and where each context runs (UPSTREAM_<CONTEXT>: its Service, which spreads requests
over its replicas).
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
{{- range $name, $_ := .Values.contexts }}
- name: UPSTREAM_{{ upper $name }}
  value: "http://{{ $.Release.Name }}-{{ $name }}:{{ $.Values.port }}"
{{- end }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end }}

{{/*
A process's Deployment. SIGTERM makes it drain (readyz 503 at once, then up to DRAIN_TIMEOUT_MS to
finish what it holds); the preStop sleep first lets the endpoint leave every balancer.
*/}}
{{- define "questline.deployment" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .root.Release.Name }}-{{ .component }}
  labels:
    {{- include "questline.labels" . | nindent 4 }}
spec:
  {{- if not .process.autoscaling.enabled }}
  replicas: {{ .process.replicas }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "questline.selector" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  template:
    metadata:
      labels:
        {{- include "questline.selector" . | nindent 8 }}
    spec:
      terminationGracePeriodSeconds: {{ .root.Values.terminationGracePeriodSeconds }}
      {{- if .root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml .root.Values.imagePullSecrets | nindent 8 }}
      {{- end }}
      securityContext:
        {{- include "questline.podSecurityContext" . | nindent 8 }}
      containers:
        - name: questline
          image: {{ include "questline.image" .root }}
          imagePullPolicy: {{ .root.Values.image.pullPolicy }}
          args: ["serve", "--only", {{ .only | quote }}]
          env:
            {{- include "questline.env" .root | nindent 12 }}
            {{- if ne .only "edge" }}
            # The gateway's keys, for tokens signed with a key this process does not hold.
            - name: JWKS_URL
              value: "http://{{ .root.Release.Name }}-gateway:{{ .root.Values.gateway.service.port }}/auth/jwks.json"
            {{- end }}
          ports:
            - name: http
              containerPort: {{ .root.Values.port }}
            - name: metrics
              containerPort: {{ .root.Values.metricsPort }}
          # Up as soon as it listens; ready once started with its database and bus, and not draining.
          startupProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 2
            failureThreshold: 30
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 10
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
            periodSeconds: 5
            failureThreshold: 2
          lifecycle:
            preStop:
              exec:
                command: ["sleep", {{ .root.Values.preStopSleepSeconds | quote }}]
          resources:
            {{- toYaml .process.resources | nindent 12 }}
          securityContext:
            {{- include "questline.containerSecurityContext" . | nindent 12 }}
          volumeMounts:
            - name: data
              mountPath: /data
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: data
          emptyDir: {}
        - name: tmp
          emptyDir: {}
{{- end }}

{{- define "questline.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .root.Release.Name }}-{{ .component }}
  labels:
    {{- include "questline.labels" . | nindent 4 }}
spec:
  type: {{ .type }}
  selector:
    {{- include "questline.selector" . | nindent 4 }}
  ports:
    - name: http
      port: {{ .port }}
      targetPort: http
    - name: metrics
      port: {{ .root.Values.metricsPort }}
      targetPort: metrics
{{- end }}

{{/* At most one pod of a process down by choice (node drains) at a time. */}}
{{- define "questline.pdb" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .root.Release.Name }}-{{ .component }}
  labels:
    {{- include "questline.labels" . | nindent 4 }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      {{- include "questline.selector" . | nindent 6 }}
{{- end }}

{{- define "questline.hpa" -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .root.Release.Name }}-{{ .component }}
  labels:
    {{- include "questline.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ .root.Release.Name }}-{{ .component }}
  minReplicas: {{ .process.autoscaling.minReplicas }}
  maxReplicas: {{ .process.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .process.autoscaling.targetCPUUtilizationPercentage }}
{{- end }}
