{{- define "prov.meta" -}}
metadata:
  name: {{ .Release.Name }}
  labels:
    {{- toYaml .Values.labels | nindent 4 }}
{{- end }}

{{- define "prov.data" }}
data:
  a: "1"
{{- end }}
