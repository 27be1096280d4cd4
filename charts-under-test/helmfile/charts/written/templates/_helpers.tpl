{{- define "written.name" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end -}}
