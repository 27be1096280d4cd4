{{- define "router.tlsSecret" -}}
{{- if eq .Values.pki.mode "existingSecret" -}}
{{- required "pki.secretName is required when pki.mode is existingSecret" .Values.pki.secretName -}}
{{- else -}}
{{- printf "%s-tls" .Release.Name -}}
{{- end -}}
{{- end -}}
