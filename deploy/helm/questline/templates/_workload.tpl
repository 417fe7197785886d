{{/*
A process's workload: a StatefulSet for a context with owners (each replica named, found by DNS
through its headless Service), a Deployment for any other. SIGTERM makes a process drain (readyz
503 at once, then up to DRAIN_TIMEOUT_MS to finish what it holds); the preStop sleep first lets
the endpoint leave every balancer. Pods roll when the chart's Secret changes (checksum/secret).
*/}}
{{- define "questline.workload" -}}
{{- $owned := eq (include "questline.owned" .) "true" -}}
{{- if and $owned (eq (include "questline.autoscaled" .) "true") -}}
{{- fail (printf "contexts.%s: a context with owners has a fixed replica count; turn autoscaling off (docs/deploy.md#kubernetes-with-helm)" .component) -}}
{{- end -}}
apiVersion: apps/v1
kind: {{ ternary "StatefulSet" "Deployment" $owned }}
metadata:
  name: {{ .root.Release.Name }}-{{ .component }}
  labels:
    {{- include "questline.labels" . | nindent 4 }}
spec:
  {{- if ne (include "questline.autoscaled" .) "true" }}
  replicas: {{ .process.replicas }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "questline.selector" . | nindent 6 }}
  {{- if $owned }}
  serviceName: {{ include "questline.headless" . }}
  # All at once: a replica needs no other to start; ownership moves as they come and go.
  podManagementPolicy: Parallel
  updateStrategy:
    type: RollingUpdate
  {{- else }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  {{- end }}
  template:
    metadata:
      labels:
        {{- include "questline.selector" . | nindent 8 }}
      annotations:
        checksum/secret: {{ include (print .root.Template.BasePath "/secret.yaml") .root | sha256sum }}
        {{- with .root.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      terminationGracePeriodSeconds: {{ .root.Values.terminationGracePeriodSeconds }}
      automountServiceAccountToken: false
      {{- with .root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- include "questline.podSecurityContext" . | nindent 8 }}
      containers:
        - name: questline
          image: {{ include "questline.image" .root }}
          imagePullPolicy: {{ .root.Values.image.pullPolicy }}
          args: ["serve", "--only", {{ .only | quote }}]
          env:
            {{- if $owned }}
            # Only to spell ADVERTISE_URL: this replica's name among UPSTREAM_{{ upper .component }}.
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- end }}
            {{- include "questline.env" .root | nindent 12 }}
            {{- if $owned }}
            - name: ADVERTISE_URL
              value: "http://$(POD_NAME).{{ include "questline.replicaDomain" . }}:{{ .root.Values.port }}"
            {{- end }}
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
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
            periodSeconds: 5
            timeoutSeconds: 3
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

{{/*
A process's Service. With owners: headless, each replica's address listed even before it is ready
(its peers' health checks decide whom they count). The gateway's may be public: it carries no
metrics port (questline.metricsService has it).
*/}}
{{- define "questline.service" -}}
{{- $owned := eq (include "questline.owned" .) "true" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ if $owned }}{{ include "questline.headless" . }}{{ else }}{{ .root.Release.Name }}-{{ .component }}{{ end }}
  labels:
    {{- include "questline.labels" . | nindent 4 }}
spec:
  {{- if $owned }}
  clusterIP: None
  publishNotReadyAddresses: true
  {{- else }}
  type: {{ .type }}
  {{- end }}
  selector:
    {{- include "questline.selector" . | nindent 4 }}
  ports:
    - name: http
      port: {{ .port }}
      targetPort: http
    {{- if ne .component "gateway" }}
    - name: metrics
      port: {{ .root.Values.metricsPort }}
      targetPort: metrics
    {{- end }}
{{- end }}

{{/* The gateway's metrics port, on a headless Service of its own that nothing publishes. */}}
{{- define "questline.metricsService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .root.Release.Name }}-{{ .component }}-metrics
  labels:
    {{- include "questline.labels" . | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "questline.selector" . | nindent 4 }}
  ports:
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
  minReplicas: {{ dig "autoscaling" "minReplicas" 1 .process }}
  maxReplicas: {{ dig "autoscaling" "maxReplicas" 3 .process }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ dig "autoscaling" "targetCPUUtilizationPercentage" 70 .process }}
{{- end }}
