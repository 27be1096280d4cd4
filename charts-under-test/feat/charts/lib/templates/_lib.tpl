{{- define "lib.hello" -}}hello from lib {{ .Chart.Name }}{{- end -}}
