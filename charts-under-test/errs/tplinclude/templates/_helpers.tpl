{{- define "tplinclude.body" -}}
body: {{ tpl .Values.snippet . }}
{{- end }}
