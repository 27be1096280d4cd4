{{- define "function-autoscaler.fullname" -}}
{{- default (printf "%s-%s" .Release.Name .Chart.Name) .Values.functionautoscaler.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "function-autoscaler.namespace" -}}
{{- default "nvcf" .Values.functionautoscaler.namespace -}}
{{- end -}}

{{- define "function-autoscaler.image" -}}
{{- $registry := .Values.functionautoscaler.image.registry | default "" -}}
{{- $repository := required "A valid image repository (.Values.functionautoscaler.image.repository) is required!" .Values.functionautoscaler.image.repository -}}
{{- $tag := .Values.functionautoscaler.image.tag | default .Chart.AppVersion -}}
{{- if $registry -}}
{{- printf "%s/%s:%s" $registry $repository $tag -}}
{{- else -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}
{{- end -}}
