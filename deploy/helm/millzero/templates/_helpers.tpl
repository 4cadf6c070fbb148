{{/*
Names. Kubernetes names and label values hold at most 63 characters.
*/}}
{{- define "millzero.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every resource name: RELEASE-millzero, or the release name
alone when it already contains the chart name. Left room for the longest
suffix ("-selfplay", "-arena-rNNNN").
*/}}
{{- define "millzero.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 45 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 45 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 45 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "millzero.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels of every resource; include with (dict "ctx" $ "component" "trainer").
*/}}
{{- define "millzero.labels" -}}
helm.sh/chart: {{ include "millzero.chart" .ctx }}
{{ include "millzero.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Values.image.tag | default .ctx.Chart.AppVersion | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: millzero
{{- end }}

{{/*
The labels a Deployment selects its pods by: fixed for the life of a
release (a Deployment's selector cannot change).
*/}}
{{- define "millzero.selectorLabels" -}}
app.kubernetes.io/name: {{ include "millzero.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "millzero.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/*
The Secret holding the store's credentials: the user's, the chart's, or
none (empty string).
*/}}
{{- define "millzero.storeSecret" -}}
{{- if .Values.store.existingSecret }}
{{- .Values.store.existingSecret }}
{{- else if .Values.store.env }}
{{- printf "%s-store" (include "millzero.fullname" .) }}
{{- end }}
{{- end }}

{{/*
The run URL, refused when it cannot be shared by several pods. The schema
says the same; this message is the clearer one.
*/}}
{{- define "millzero.runURL" -}}
{{- $url := .Values.run.url | trim }}
{{- if not (regexMatch "^(s3|gs|azblob)://[^/?]+" $url) }}
{{- fail (printf "run.url %q: want an object-store URL shared by all pods, s3://BUCKET[/PREFIX][?endpoint=...], gs://BUCKET[/PREFIX] or azblob://CONTAINER[/PREFIX]" $url) }}
{{- end }}
{{- $url }}
{{- end }}

{{/*
CPU quantity in millicores: "2" -> 2000, "1500m" -> 1500, 2 -> 2000,
0.5 -> 500. Call with (dict "what" "selfplay.resources.limits.cpu" "q" VALUE).
*/}}
{{- define "millzero.cpuMillis" -}}
{{- $q := toString .q }}
{{- if regexMatch "^[0-9]+m$" $q }}
{{- trimSuffix "m" $q | atoi }}
{{- else if regexMatch "^[0-9]+(\\.[0-9]+)?$" $q }}
{{- mulf (float64 $q) 1000 | ceil | int }}
{{- else }}
{{- fail (printf "%s %q: want a CPU quantity such as 2, 0.5 or 1500m" .what $q) }}
{{- end }}
{{- end }}

{{/*
Resources of a container whose CPU request is its number of workers:
include with (dict "what" "selfplay" "workers" N "resources" MAP).
*/}}
{{- define "millzero.workerResources" -}}
{{- $res := deepCopy (.resources | default dict) }}
{{- $req := deepCopy ($res.requests | default dict) }}
{{- $_ := set $req "cpu" (toString .workers) }}
{{- $_ := set $res "requests" $req }}
{{- with $res.limits }}
{{- with .cpu }}
{{- $what := printf "%s.resources.limits.cpu" $.what }}
{{- if lt (include "millzero.cpuMillis" (dict "what" $what "q" .) | atoi) (mul $.workers 1000 | int) }}
{{- fail (printf "%s %v is below %s.workers (%v): each worker keeps a core busy" $what . $.what $.workers) }}
{{- end }}
{{- end }}
{{- end }}
{{- toYaml $res }}
{{- end }}

{{/*
Pod-level settings shared by every pod: non-root uid 10001 (the image's
user millzero), the runtime's default seccomp profile, no API token, and
the scheduling values. Meets the "restricted" Pod Security Standard.
*/}}
{{- define "millzero.podSpecCommon" -}}
automountServiceAccountToken: false
{{- with .Values.serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  runAsNonRoot: true
  runAsUser: 10001
  runAsGroup: 10001
  fsGroup: 10001
  seccompProfile:
    type: RuntimeDefault
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Container-level security: nothing but the binary may run, nothing is
written outside the mounted volumes.
*/}}
{{- define "millzero.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
capabilities:
  drop: ["ALL"]
{{- end }}

{{/*
Annotations of every pod: a checksum of the config and credentials the
chart owns, so a change to them restarts the pods on upgrade.
*/}}
{{- define "millzero.podAnnotations" -}}
checksum/config: {{ .Values.run.configYAML | sha256sum }}
checksum/store: {{ toJson .Values.store | sha256sum }}
{{- with .Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The scrape annotations of a pod that serves /metrics (the trainer and the
workers), when metrics are enabled.
*/}}
{{- define "millzero.metricsAnnotations" -}}
{{- if .Values.metrics.enabled }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.metrics.port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- end }}

{{/*
The --metrics-addr argument of a container that serves /metrics, when
metrics are enabled.
*/}}
{{- define "millzero.metricsArgs" -}}
{{- if .Values.metrics.enabled }}
- --metrics-addr=:{{ .Values.metrics.port }}
{{- end }}
{{- end }}

{{/*
The container port of /metrics, when metrics are enabled.
*/}}
{{- define "millzero.metricsPorts" -}}
{{- if .Values.metrics.enabled }}
ports:
  - name: metrics
    containerPort: {{ .Values.metrics.port }}
    protocol: TCP
{{- end }}
{{- end }}

{{/*
Environment of every container (besides the store's credentials, which
come from the Secret with envFrom): a writable home, cache and temporary
directory on the volumes.
*/}}
{{- define "millzero.env" -}}
- name: HOME
  value: /data
- name: XDG_CACHE_HOME
  value: /data/.cache
- name: TMPDIR
  value: /tmp
{{- if .Values.store.gcpCredentials.secretName }}
- name: GOOGLE_APPLICATION_CREDENTIALS
  value: /var/run/secrets/millzero/gcp/{{ .Values.store.gcpCredentials.key }}
{{- end }}
{{- end }}

{{/*
The arguments every command gets after its own: the run's cache in /data.
*/}}
{{- define "millzero.cacheArgs" -}}
- --cache
- /data/cache
{{- end }}

{{- define "millzero.volumeMounts" -}}
- name: data
  mountPath: /data
- name: tmp
  mountPath: /tmp
{{- if .Values.run.configYAML }}
- name: config
  mountPath: /etc/millzero
  readOnly: true
{{- end }}
{{- if .Values.store.gcpCredentials.secretName }}
- name: gcp-credentials
  mountPath: /var/run/secrets/millzero/gcp
  readOnly: true
{{- end }}
{{- end }}

{{- define "millzero.volumes" -}}
- name: data
  emptyDir:
    {{- with .Values.cache.medium }}
    medium: {{ . }}
    {{- end }}
    {{- with .Values.cache.sizeLimit }}
    sizeLimit: {{ . }}
    {{- end }}
- name: tmp
  emptyDir:
    sizeLimit: 1Gi
{{- if .Values.run.configYAML }}
- name: config
  configMap:
    name: {{ include "millzero.fullname" . }}-config
{{- end }}
{{- with .Values.store.gcpCredentials }}
{{- if .secretName }}
- name: gcp-credentials
  secret:
    secretName: {{ .secretName }}
    items:
      - key: {{ .key }}
        path: {{ .key }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The --config arguments of millzero train (a config only matters there).
*/}}
{{- define "millzero.configArgs" -}}
{{- if .Values.run.configYAML -}}
- --config
- /etc/millzero/run.yaml
{{- else if .Values.run.config -}}
- --config
- {{ .Values.run.config | quote }}
{{- end }}
{{- end }}
