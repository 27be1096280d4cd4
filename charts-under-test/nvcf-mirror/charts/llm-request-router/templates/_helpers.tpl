{{- /* The hostname workers dial: configured, the Service name for one replica, or
       a per-pod name under the headless Service. */ -}}
{{- define "router.advertisedHostname" -}}
{{- $r := .Values.llmRequestRouter -}}
{{- if $r.kubernetes.advertisedHostnameTemplate -}}
{{- $r.kubernetes.advertisedHostnameTemplate -}}
{{- else if eq (int $r.replicaCount) 1 -}}
{{- printf "%s.%s.svc.cluster.local" .Release.Name .Release.Namespace -}}
{{- else -}}
{{- printf "{pod_name}.%s-headless.%s.svc.cluster.local" .Release.Name .Release.Namespace -}}
{{- end -}}
{{- end -}}

{{- define "router.tlsSecret" -}}
{{- $r := .Values.llmRequestRouter -}}
{{- $r.tls.secretName | default $r.certificate.secretName -}}
{{- end -}}

{{- define "router.tlsMountPath" -}}
{{- $tls := .Values.llmRequestRouter.tls -}}
{{- $tls.mountPath | default (dir ($tls.certPath | default "/etc/stargate/tls/tls.crt")) -}}
{{- end -}}

{{- /* Every guard of the chart, with the messages the pack's rules expect. */ -}}
{{- define "router.validate" -}}
{{- $r := .Values.llmRequestRouter -}}
{{- if and $r.discovery.disableDnsDiscovery (gt (int $r.replicaCount) 1) -}}
{{- fail "llmRequestRouter.discovery.disableDnsDiscovery cannot be true when llmRequestRouter.replicaCount is greater than 1; multi-replica routers require DNS discovery" -}}
{{- end -}}
{{- $mode := $r.tls.mode -}}
{{- if not (has $mode (list "certManager" "existingSecret")) -}}
{{- fail (printf "llmRequestRouter.tls.mode must be certManager or existingSecret, got %q" $mode) -}}
{{- end -}}
{{- if eq $mode "existingSecret" -}}
{{- if $r.certificate.enabled -}}
{{- fail "llmRequestRouter.certificate.enabled must be false when llmRequestRouter.tls.mode is existingSecret" -}}
{{- end -}}
{{- range $key := list "secretName" "certPath" "keyPath" -}}
{{- if not (get $r.tls $key) -}}
{{- fail (printf "llmRequestRouter.tls.%s is required when llmRequestRouter.tls.mode is existingSecret" $key) -}}
{{- end -}}
{{- end -}}
{{- $mount := include "router.tlsMountPath" . -}}
{{- if not (isAbs $mount) -}}
{{- fail "llmRequestRouter.tls.mountPath must be an absolute path when llmRequestRouter.tls.mode is existingSecret" -}}
{{- end -}}
{{- if or (ne $mount (dir $r.tls.certPath)) (ne $mount (dir $r.tls.keyPath)) -}}
{{- fail "llmRequestRouter.tls.mountPath must match the directory containing llmRequestRouter.tls.certPath and llmRequestRouter.tls.keyPath when llmRequestRouter.tls.mode is existingSecret" -}}
{{- end -}}
{{- end -}}
{{- if $r.certificate.enabled -}}
{{- if not $r.certificate.dnsNames -}}
{{- fail "llmRequestRouter.certificate.dnsNames is required when certificate.enabled is true" -}}
{{- end -}}
{{- /* Covered by an exact name, or by a wildcard standing for one whole left-most
       label (the pod name placeholder may only fill that label). */ -}}
{{- $template := include "router.advertisedHostname" . -}}
{{- $host := replace "{namespace}" .Release.Namespace $template | replace "{pod_name}" (printf "%s-0" .Release.Name) | lower -}}
{{- $labels := splitList "." $host -}}
{{- $rest := rest $labels | join "." -}}
{{- $valid := regexMatch "^([a-z0-9]([a-z0-9-]*[a-z0-9])?\\.)+[a-z]+$" $host -}}
{{- $covered := false -}}
{{- range $name := $r.certificate.dnsNames -}}
{{- $name = lower $name -}}
{{- if and $valid (not (contains "{pod_name}" $template)) (eq $name $host) -}}
{{- $covered = true -}}
{{- else if and $valid (hasPrefix "*." $name) (eq (trimPrefix "*." $name) $rest) (contains "." $rest) (not (contains "{pod_name}" (rest (splitList "." $template) | join "."))) -}}
{{- $covered = true -}}
{{- end -}}
{{- end -}}
{{- if not $covered -}}
{{- fail (printf "advertised hostname template %q is not covered by llmRequestRouter.certificate.dnsNames %s" $template (toJson $r.certificate.dnsNames)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
