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
The agent's service account. The release's ClusterRoleBinding binds it, and the admission policy polices whom that
binding binds: it must be the agent's own ("default" is refused while the policy is on: every pod of the namespace
that runs as it would get the agent's permissions).
*/}}
{{- define "node-labeller.serviceAccountName" -}}
{{- $name := .Values.serviceAccount.create | ternary (default (include "node-labeller.fullname" .) .Values.serviceAccount.name) (default "default" .Values.serviceAccount.name) -}}
{{- if and .Values.admissionPolicy.enabled (eq $name "default") -}}
{{- fail "serviceAccount: the agent needs its own service account while the admission policy is on (serviceAccount.create=true, or serviceAccount.name of an existing one that only the agent uses)" -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{/*
The GPU agent's service account (gpu.enabled): the agent's, "-gpu" appended. The release's ClusterRoleBinding binds it
beside the host agent's and names it in node-labeller.io/gpu-agent, so that the admission policies tell the two agents
apart (docs/security.md, "Two agents, two identities"). With serviceAccount.create=false it must exist as well.
*/}}
{{- define "node-labeller.gpuServiceAccountName" -}}
{{- include "node-labeller.serviceAccountName" . -}}-gpu
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

{{/*
"true" when the GPU agent's DaemonSet is rendered: gpu.enabled true, or "auto" (the default) with nfdCompat.enabled, so
that an install that replaces NFD and GFD keeps GFD's labels.
*/}}
{{- define "node-labeller.gpu" -}}
{{- $on := .Values.gpu.enabled -}}
{{- if eq (toString $on) "auto" -}}{{- $on = .Values.nfdCompat.enabled -}}{{- end -}}
{{- if $on -}}true{{- end -}}
{{- end -}}

{{/*
"true" when the GPU DaemonSet looks for vGPUs (gpu.vgpu): it then reads config-gpu.yaml, runs as root with SYS_ADMIN.
*/}}
{{- define "node-labeller.vgpu" -}}
{{- $gpu := eq (include "node-labeller.gpu" .) "true" -}}
{{- if and .Values.gpu.vgpu (not $gpu) -}}
{{- fail "gpu.vgpu needs gpu.enabled: the vGPU scan runs in the GPU DaemonSet only" -}}
{{- end -}}
{{- and $gpu .Values.gpu.vgpu -}}
{{- end -}}

{{/* The GPU DaemonSet's config with gpu.vgpu: the config, plus sources.nvidia.vgpu: true. */}}
{{- define "node-labeller.gpuConfig" -}}
{{- $config := include "node-labeller.config" . | fromYaml -}}
{{- $sources := deepCopy (default (dict) $config.sources) -}}
{{- $nvidia := deepCopy (default (dict) $sources.nvidia) -}}
{{- $_ := set $nvidia "vgpu" true -}}
{{- $_ := set $sources "nvidia" $nvidia -}}
{{- $_ := set $config "sources" $sources -}}
{{- toYaml $config -}}
{{- end -}}

{{/*
The write scope's domains, comma-separated (the annotation node-labeller.io/label-domains of the release's
ClusterRoleBinding): writeScope.labelDomains and config.core.extraLabelNs ("*." dropped: subdomains are allowed anyway),
without NFD's namespaces (always allowed) and without a reserved domain (nvidia.com, kubernetes.io, k8s.io,
node-labeller.io or a subdomain: the agent and the policy ignore those whatever this lists).
*/}}
{{- define "node-labeller.labelDomains" -}}
{{- $core := (default (dict) (default (dict) .Values.config).core) -}}
{{- $domains := list -}}
{{- range (concat (default (list) .Values.writeScope.labelDomains) (default (list) $core.extraLabelNs)) -}}
{{- $d := trimPrefix "*." . -}}
{{- $skip := false -}}
{{- range (list "feature.node.kubernetes.io" "profile.node.kubernetes.io" "nvidia.com" "kubernetes.io" "k8s.io" "node-labeller.io") -}}
{{- if or (eq $d .) (hasSuffix (printf ".%s" .) $d) }}{{ $skip = true }}{{ end -}}
{{- end -}}
{{- if not $skip }}{{ $domains = append $domains $d }}{{ end -}}
{{- end -}}
{{- $domains | uniq | join "," -}}
{{- end -}}

{{/*
"true" when the GPU DaemonSet needs the MIG monitor capability: gpu.migMonitor true, or "auto" with a MIG strategy
other than none in gpu.migStrategy, else in devicePluginConfig.
*/}}
{{- define "node-labeller.migMonitor" -}}
{{- $m := .Values.gpu.migMonitor -}}
{{- if eq (toString $m) "auto" -}}
{{- $strategy := .Values.gpu.migStrategy | default (((.Values.devicePluginConfig).flags).migStrategy) | default "none" -}}
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
