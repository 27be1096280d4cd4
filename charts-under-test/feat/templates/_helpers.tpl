{{- define "feat.name" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end -}}
{{- define "shared" -}}from-parent{{- end -}}
