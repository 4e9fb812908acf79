{{/*
The objects' base name: the release name (nginx-control-plane by default), or fullnameOverride. Every name the chart
gives is this plus a suffix, cluster-scoped ones included, so two releases never collide.
*/}}
{{- define "ngx.fullname" -}}
{{- $name := default .Release.Name .Values.fullnameOverride -}}
{{- if gt (len $name) 40 -}}
{{- fail (printf "the release name (or fullnameOverride) %q is longer than 40 characters: %s-controller-metrics must be a valid Service name" $name $name) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{- define "ngx.controllerName" -}}{{ include "ngx.fullname" . }}-controller{{- end -}}
{{- define "ngx.apiName" -}}{{ include "ngx.fullname" . }}-api{{- end -}}
{{- define "ngx.postgresqlName" -}}{{ include "ngx.fullname" . }}-postgresql{{- end -}}
{{/* The Service of the API pods: the UI, the REST API and both webhooks. */}}
{{- define "ngx.serviceName" -}}{{ include "ngx.fullname" . }}{{- end -}}
{{- define "ngx.tlsSecretName" -}}{{ default (printf "%s-tls" (include "ngx.fullname" .)) .Values.tls.secretName }}{{- end -}}
{{- define "ngx.databaseSecretName" -}}{{ default (printf "%s-database" (include "ngx.fullname" .)) .Values.database.existingSecret }}{{- end -}}
{{/* The controller's leader-election Lease: a fixed name in the app. */}}
{{- define "ngx.leaseName" -}}nginx-controller{{- end -}}
{{/* The admission webhook configuration the controller registers: a fixed name in the app. */}}
{{- define "ngx.webhookName" -}}nginxes.mycompany.com{{- end -}}

{{/* Labels of every object; `component` is added per object. helm.sh/chart and managed-by are left out of the
kustomize render (tools/deploy/render.ts). */}}
{{- define "ngx.labels" -}}
app.kubernetes.io/name: nginx-control-plane
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The labels that select one component's pods: (dict "root" $ "component" "api"). */}}
{{- define "ngx.selectorLabels" -}}
app.kubernetes.io/name: nginx-control-plane
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "ngx.image" -}}{{ .Values.image.repository }}:{{ .Values.image.tag }}{{- end -}}

{{/* The audit database's URL, from the database Secret (required: the pods do not start without it). */}}
{{- define "ngx.databaseEnv" -}}
# One PostgreSQL shared by every replica of both roles: the audit trail is whole and outlives
# the pods. The Secret is required (the pod does not start without it); migrations run at
# container start, waiting up to MIGRATE_WAIT_SECONDS for the database, and concurrent
# replicas take turns (Prisma's advisory lock).
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "ngx.databaseSecretName" . }}
      key: url
- name: MIGRATE_WAIT_SECONDS
  value: {{ .Values.database.migrateWaitSeconds | quote }}
{{- end -}}

{{/* Settings both roles read. */}}
{{- define "ngx.commonEnv" -}}
# The CRD is applied by the chart (or an admin: deploy/crd); the service accounts may not touch CRDs.
- name: INSTALL_CRD
  value: 'false'
- name: LOG_FORMAT
  value: {{ .Values.logFormat | quote }}
{{- with .Values.imageAllowlist }}
- name: IMAGE_ALLOWLIST
  value: {{ join "," . | quote }}
{{- end }}
{{- with .Values.watchNamespace }}
- name: WATCH_NAMESPACE
  value: {{ . | quote }}
{{- end }}
# The root filesystem is read-only: npm (npx in the migration step) and Prisma write under $HOME.
- name: HOME
  value: /tmp
{{- end -}}

{{/* The rolling update that drops nothing: a new pod is ready before an old one goes. */}}
{{- define "ngx.strategy" -}}
strategy:
  type: RollingUpdate
  rollingUpdate:
    maxUnavailable: 0
    maxSurge: 1
{{- end -}}

{{/* Scheduling and pull secrets of one role's pods: (dict "root" $ "role" .Values.api). */}}
{{- define "ngx.podPlacement" -}}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .role.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .role.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .role.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
