{{- define "web.tlsSecret" -}}
{{- if eq .Values.tls.mode "existingSecret" -}}
{{- required "tls.secretName is required when tls.mode is existingSecret" .Values.tls.secretName -}}
{{- else -}}
{{- printf "%s-tls" .Release.Name -}}
{{- end -}}
{{- end -}}

{{- define "web.validate" -}}
{{- if not (has .Values.tls.mode (list "certManager" "existingSecret")) -}}
{{- fail (printf "tls.mode must be certManager or existingSecret, got %q" .Values.tls.mode) -}}
{{- end -}}
{{- end -}}
