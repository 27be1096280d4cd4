{{- define "template.port" -}}
{{ required "service.port is required" .Values.service.port }}
{{- end }}
