{{/* Names, labels and the checks every template runs. */}}

{{- define "quiver.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "quiver.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The headless Service: the members' stable DNS names, ready or not. */}}
{{- define "quiver.headless" -}}
{{- printf "%s-headless" (include "quiver.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "quiver.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "quiver.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "quiver.selectorLabels" -}}
app.kubernetes.io/name: {{ include "quiver.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "quiver.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "quiver.authSecret" -}}
{{- default (printf "%s-auth" (include "quiver.fullname" .)) .Values.auth.existingSecret -}}
{{- end -}}

{{- define "quiver.backupClaim" -}}
{{- default (printf "%s-backups" (include "quiver.fullname" .)) .Values.backup.persistence.existingClaim -}}
{{- end -}}

{{- define "quiver.dataDir" -}}
{{- printf "%s/%s" .Values.persistence.mountPath .Values.persistence.dataSubdir -}}
{{- end -}}

{{/* HTTPS when the HTTP listener takes TLS only. */}}
{{- define "quiver.httpScheme" -}}
{{- if and .Values.tls.enabled (eq .Values.tls.http "required") -}}HTTPS{{- else -}}HTTP{{- end -}}
{{- end -}}

{{/* A setting's value as text: YAML numbers reach templates as floats, printed whole. */}}
{{- define "quiver.scalar" -}}
{{- if kindIs "float64" . -}}
{{- if eq (float64 (int64 .)) . -}}{{ int64 . }}{{- else -}}{{ . }}{{- end -}}
{{- else -}}
{{- . -}}
{{- end -}}
{{- end -}}

{{/* Combinations the server would refuse, or the chart cannot serve, fail the render. */}}
{{- define "quiver.validate" -}}
{{- $v := .Values -}}
{{- if and $v.auth.enabled (not $v.auth.existingSecret) -}}
{{- if not $v.auth.password -}}
{{- fail "auth: set auth.existingSecret (a Secret holding the administrator's password) or auth.password" -}}
{{- end -}}
{{- if lt (len $v.auth.password) 8 -}}
{{- fail "auth.password: the server takes passwords of 8 characters or more" -}}
{{- end -}}
{{- end -}}
{{- if and $v.tls.enabled (not $v.tls.secretName) -}}
{{- fail "tls.enabled needs tls.secretName (a kubernetes.io/tls Secret)" -}}
{{- end -}}
{{- if and $v.tls.enabled $v.tls.clientCa (eq $v.tls.http "required") -}}
{{- fail "tls.clientCa with tls.http=required leaves the kubelet's probes no way in: keep tls.http optional" -}}
{{- end -}}
{{- range $key, $_ := $v.settings -}}
{{- if has $key (list "config" "bolt-listen" "http-listen" "data-dir" "in-memory" "auth" "initial-user" "tls-cert" "tls-key" "tls-client-ca" "bolt-tls" "http-tls" "node-id" "raft-listen" "initial-members" "join" "advertised-address" "cluster-tls-cert" "cluster-tls-key" "cluster-tls-ca" "allow-plain-cluster-network" "drain-timeout-ms") -}}
{{- fail (printf "settings.%s is set by the chart (see values.yaml)" $key) -}}
{{- end -}}
{{- end -}}
{{- $grace := int $v.shutdown.terminationGracePeriodSeconds -}}
{{- $needed := add (int $v.shutdown.preStopSleepSeconds) 5 (int $v.shutdown.drainTimeoutSeconds) -}}
{{- if le $grace $needed -}}
{{- fail (printf "shutdown.terminationGracePeriodSeconds (%d) must exceed preStop + 5 s of leadership handover + the drain (%d s), with room for the store to close" $grace $needed) -}}
{{- end -}}
{{- if $v.cluster.enabled -}}
{{- if and (not $v.cluster.tls.secretName) (not $v.cluster.allowPlainNetwork) -}}
{{- fail "cluster.enabled needs cluster.tls.secretName (members' certificates), or cluster.allowPlainNetwork=true on a network where a plain Raft port is safe" -}}
{{- end -}}
{{- if lt (int $v.cluster.initialMembers) 1 -}}
{{- fail "cluster.initialMembers must be 1 or more" -}}
{{- end -}}
{{- if $v.backup.enabled -}}
{{- fail "backup.enabled: cluster members refuse backups (a single server's only)" -}}
{{- end -}}
{{- if $v.restore.enabled -}}
{{- fail "restore.enabled: a restore builds a single server's data directory, not a cluster member's" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* ID=HOST:PORT of the first `count` members, by their stable names (quiver-0 is 1). */}}
{{- define "quiver.initialMembers" -}}
{{- $parts := list -}}
{{- range $i := until .count -}}
{{- $parts = append $parts (printf "%d=%s-%d.%s:%d" (add1 $i) $.fullname $i $.domain $.port) -}}
{{- end -}}
{{- join "," $parts -}}
{{- end -}}
