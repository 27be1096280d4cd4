{{- define "shared" -}}from-kid{{- end -}}
