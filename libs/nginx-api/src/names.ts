/** The resource's identity, as the seed fixed it: nginxes.mycompany.com, kind Nginx, short name ngx. */
export const NGINX_GROUP = 'mycompany.com';
export const NGINX_VERSION = 'v1';
export const NGINX_API_VERSION = `${NGINX_GROUP}/${NGINX_VERSION}`;
export const NGINX_KIND = 'Nginx';
export const NGINX_LIST_KIND = 'NginxList';
export const NGINX_PLURAL = 'nginxes';
export const NGINX_SINGULAR = 'nginx';
export const NGINX_SHORT_NAMES = ['ngx'] as const;
export const NGINX_CRD_NAME = `${NGINX_PLURAL}.${NGINX_GROUP}`;

/** Limits of spec.replicas (documented in the schema; the maximum keeps one object from asking for a node pool). */
export const MIN_REPLICAS = 0;
export const MAX_REPLICAS = 1000;
export const DEFAULT_IMAGE = 'nginx:latest';
export const DEFAULT_PORT = 80;
export const DEFAULT_SERVICE_PORT = 80;
export const DEFAULT_MAX_SURGE = '25%';
export const DEFAULT_MAX_UNAVAILABLE = '25%';
/** A canary step adds pods before it takes any away. */
export const DEFAULT_CANARY_MAX_UNAVAILABLE = 0;
/** Between an analysis' measurements, and how many a run takes. */
export const DEFAULT_ANALYSIS_INTERVAL = '30s';
export const DEFAULT_ANALYSIS_COUNT = 1;
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** Labels on every pod the controller owns. */
export const LABEL_APP_NAME = 'app.kubernetes.io/name';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
/** The controller's name: its pods' LABEL_MANAGED_BY, and the reporting component of the Events it writes. */
export const MANAGED_BY = 'nginx-control-plane';
export const LABEL_NGINX = 'mycompany.com/nginx';
/** A pod's copy of spec.restartedAt (the annotation `kubectl rollout restart` sets on a Deployment's pods). */
export const ANNOTATION_RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';
/** The revision (pod template hash) of a pod, ConfigMap or ControllerRevision. */
export const LABEL_REVISION = 'mycompany.com/revision';

export const CONDITION_AVAILABLE = 'Available';
export const CONDITION_PROGRESSING = 'Progressing';
export const CONDITION_REPLICA_FAILURE = 'ReplicaFailure';
/** Reasons of the Progressing condition while a rollout runs or stalls. */
export const REASON_ROLLING_UPDATE = 'RollingUpdate';
export const REASON_PAUSED = 'Paused';
export const REASON_DEADLINE_EXCEEDED = 'ProgressDeadlineExceeded';
export const REASON_INVALID_CONFIG = 'InvalidConfig';
/** Progressing reasons of strategy Canary: a step under way, waiting (a pause {} or a run that cannot decide), aborted. */
export const REASON_CANARY = 'Canary';
export const REASON_CANARY_PAUSED = 'CanaryPaused';
export const REASON_CANARY_ABORTED = 'CanaryAborted';
export const REASON_BLUE_GREEN = 'BlueGreen';
export const REASON_BLUE_GREEN_PAUSED = 'BlueGreenPaused';
export const REASON_BLUE_GREEN_ABORTED = 'BlueGreenAborted';
/** spec.rollbackOnFailure sent the pods back to status.currentRevision after the progress deadline passed. */
export const REASON_ROLLED_BACK = 'RolledBack';

/**
 * Requests to a canary, as annotations so kubectl can make them too: promote `<updateRevision>/<step>` (past that
 * step) or `<updateRevision>/full` (past every step); abort `<updateRevision>`. Honoured only while they name the
 * update revision (and the current step), so a stale one needs no clearing.
 */
export const ANNOTATION_PROMOTE = 'mycompany.com/promote';
export const ANNOTATION_ABORT = 'mycompany.com/abort';
