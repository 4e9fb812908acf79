/**
 * What the control plane's own endpoints (/controlplane/v1/…) answer, shared by the API that writes these shapes
 * and the UI that reads them.
 */

/** One action a reconcile took, as the audit trail stores it. */
export interface ReconcileAction {
  kind: 'create' | 'delete' | 'adopt' | 'release' | 'status' | 'config';
  /** The pod acted on (none for a status write); for `config`, the ConfigMap created. */
  pod?: string;
  /** Why a pod was deleted or released. */
  reason?: string;
  /** The revision (pod template hash) of the pod created or deleted, or whose config was created. */
  revision?: string;
}

/** A reconcile record as the audit endpoints answer it: times as RFC 3339, actions parsed back. */
export interface ReconcileItem {
  id: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  namespace: string;
  name: string;
  uid: string | null;
  generation: number | null;
  resourceVersion: string | null;
  trigger: string;
  desiredReplicas: number | null;
  activeReplicas: number | null;
  readyReplicas: number | null;
  actions: ReconcileAction[];
  result: 'success' | 'error' | 'requeued';
  error: string | null;
  attempt: number;
  instanceId: string;
}

/** A change record (one write through the REST API) as the audit endpoints answer it, specs parsed back. */
export interface ChangeItem {
  id: number;
  at: string;
  actor: string;
  role: string;
  verb: string;
  namespace: string;
  name: string;
  subresource: string | null;
  patchType: string | null;
  specBefore: unknown;
  specAfter: unknown;
  code: number;
  reason: string | null;
  message: string | null;
  uid: string | null;
  resourceVersion: string | null;
  userAgent: string | null;
}

/** Reconciles of one Nginx that changed nothing, counted. */
export interface NoopItem {
  namespace: string;
  name: string;
  count: number;
  lastAt: string;
}

/** A Kubernetes Event about an Nginx as /controlplane/v1/…/events lists it. */
export interface EventItem {
  type: string;
  reason: string;
  message: string;
  count: number;
  firstTime: string | null;
  lastTime: string | null;
  source: string;
}

/** /controlplane/v1/whoami. */
export interface Identity {
  name: string;
  role: 'viewer' | 'editor' | 'admin';
  /** The namespaces the token can see here; null for all of them. */
  namespaces: string[] | null;
  /** The one namespace this process watches (WATCH_NAMESPACE), or null. */
  watchNamespace: string | null;
  /** The normalised prefixes spec.image must fall under (IMAGE_ALLOWLIST); null: any image. Older servers omit it. */
  imageAllowlist?: string[] | null;
}
