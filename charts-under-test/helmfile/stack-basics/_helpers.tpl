{{- define "greet" -}}
hello {{ . }}
{{- end -}}
