{{- define "nvcf-invocation-service.fullname" -}}
{{- default (printf "%s-%s" .Release.Name .Chart.Name) .Values.invocation.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "nvcf-invocation-service.namespace" -}}
{{- default "nvcf" .Values.invocation.namespace -}}
{{- end -}}
