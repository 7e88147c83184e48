{{- define "node-labeller.name" -}}
{{- default "node-labeller" .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "node-labeller.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "node-labeller.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The namespace of the namespaced objects: namespaceOverride, else the release's. */}}
{{- define "node-labeller.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride -}}
{{- end -}}

{{/*
The agent's service account. The admission policy restricts every service account whose name contains it, so it
must be specific: "default" is refused while the policy is on.
*/}}
{{- define "node-labeller.serviceAccountName" -}}
{{- $name := .Values.serviceAccount.create | ternary (default (include "node-labeller.fullname" .) .Values.serviceAccount.name) (default "default" .Values.serviceAccount.name) -}}
{{- if and .Values.admissionPolicy.enabled (eq $name "default") -}}
{{- fail "serviceAccount: the admission policy matches service accounts by name, so the agent needs its own (serviceAccount.create=true, or serviceAccount.name of an existing, specific one)" -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{- define "node-labeller.labels" -}}
app.kubernetes.io/name: node-labeller
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* config.yaml: .Values.config, with NodeFeature output instead of node patches under nfdCompat. */}}
{{- define "node-labeller.config" -}}
{{- $config := deepCopy .Values.config -}}
{{- if .Values.nfdCompat.enabled -}}
{{- /* set, not merge: merge treats false as unset and would keep node: true */ -}}
{{- $publish := deepCopy (default (dict) $config.publish) -}}
{{- $nf := deepCopy (default (dict) $publish.nodeFeature) -}}
{{- $_ := set $nf "enabled" true -}}
{{- if .Values.nfdCompat.namespace -}}
{{- $_ := set $nf "namespace" .Values.nfdCompat.namespace -}}
{{- end -}}
{{- $_ := set $publish "nodeFeature" $nf -}}
{{- $_ := set $publish "node" false -}}
{{- $_ := set $config "publish" $publish -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}

{{/* The label domains the admission policy allows: admissionPolicy.labelDomains and config.core.extraLabelNs ("*." dropped: subdomains are allowed anyway), as a JSON list. */}}
{{- define "node-labeller.labelDomains" -}}
{{- $domains := list -}}
{{- range .Values.admissionPolicy.labelDomains }}{{ $domains = append $domains . }}{{ end -}}
{{- $core := (default (dict) (default (dict) .Values.config).core) -}}
{{- range (default (list) $core.extraLabelNs) }}{{ $domains = append $domains (trimPrefix "*." .) }}{{ end -}}
{{- $domains | uniq | toJson -}}
{{- end -}}

{{/*
"true" when the GPU DaemonSet needs the MIG monitor capability: gpu.migMonitor true, or "auto" with a MIG strategy
other than none in devicePluginConfig.
*/}}
{{- define "node-labeller.migMonitor" -}}
{{- $m := .Values.gpu.migMonitor -}}
{{- if eq (toString $m) "auto" -}}
{{- $strategy := (((.Values.devicePluginConfig).flags).migStrategy) | default "none" -}}
{{- ne $strategy "none" -}}
{{- else -}}
{{- eq (toString $m) "true" -}}
{{- end -}}
{{- end -}}

{{/* "true" when rules' taints are applied (config.publish.taints), else empty. */}}
{{- define "node-labeller.taints" -}}
{{- if dig "publish" "taints" false (default (dict) .Values.config) }}true{{ end -}}
{{- end -}}

{{/* "true" when rules' extended resources are applied (config.publish.extendedResources), else empty. */}}
{{- define "node-labeller.extendedResources" -}}
{{- if dig "publish" "extendedResources" false (default (dict) .Values.config) }}true{{ end -}}
{{- end -}}
