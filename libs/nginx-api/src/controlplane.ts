/** The version of the control plane's own API: its path prefix (`/controlplane/v1/...`) and its objects' `apiVersion`. */
export const CONTROLPLANE_API_VERSION = 'controlplane/v1';

/**
 * What the control plane's own endpoints (/controlplane/v1/…) answer, shared by the API that writes these shapes
 * and the UI that reads them.
 */

import type { NginxPodTemplate } from './template-fields.js';
import type { NginxAnalysisMeasurement } from './types.js';

/** What a reconcile can do, as its audit record names each action. */
export const RECONCILE_ACTION_KINDS = [
  'create',
  'delete',
  'adopt',
  'release',
  'status',
  'config',
  'revision',
  'service',
  'budget',
  'ingress',
  'analysis',
  'canary',
  'route',
  'blue-green',
  'gate',
] as const;

/** One action a reconcile took, as the audit trail stores it. */
export interface ReconcileAction {
  kind: (typeof RECONCILE_ACTION_KINDS)[number];
  /** The pod acted on (none for a status write). */
  pod?: string;
  /**
   * Any other object acted on: the ConfigMap of `config`, the ControllerRevision of `revision`, the Service of
   * `service`, the PodDisruptionBudget of `budget`, the Ingress of `ingress`, the HTTPRoute of `route`
   * ("HTTPRoute namespace/name", its rules written: `reason` says "weight 20" and any header route), and what a
   * `delete` without a pod deleted.
   */
  object?: string;
  /** Why a pod (or object) was deleted or released, or what was done to it. */
  reason?: string;
  /** The revision (pod template hash) of the pod created or deleted, or whose config was created. */
  revision?: string;
  /**
   * `analysis`: the run (its name in `object`) took this measurement. `canary`: the canary moved (`reason`:
   * "step 2", "promoted", "aborted"), with `object` naming the analysis run that caused an abort.
   */
  measurement?: NginxAnalysisMeasurement;
  /** `canary`: the step it moved to. */
  step?: number;
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

/**
 * The writes our API makes to an Nginx, as recorded in the audit trail: the REST verbs (`deletecollection` once
 * for each Nginx a collection delete removed), `rollback` (the control plane's
 * `POST …/revisions/{n}/rollback`, which patches the spec back to an old revision's template), and `promote` and
 * `abort` (`POST …/promote` and `…/abort`, which annotate a canary's request).
 */
export const CHANGE_VERBS = [
  'create',
  'update',
  'patch',
  'apply',
  'delete',
  'deletecollection',
  'rollback',
  'promote',
  'abort',
] as const;
export type ChangeVerb = (typeof CHANGE_VERBS)[number];

/** A change record (one write through the REST API) as the audit endpoints answer it, specs parsed back. */
/** How a change came in: the control plane's API, straight to kube-apiserver, or unknown (seen by the informer). */
export type ChangeDoor = 'controlplane' | 'kube-apiserver' | 'unknown';

/** How the person behind a change made through the control plane signed in. */
export const AUTHENTICATED_BY = ['static-token', 'oidc', 'serviceaccount'] as const;
export type AuthenticatedBy = (typeof AUTHENTICATED_BY)[number];

/**
 * A change of an Nginx as /controlplane/v1/audit/changes lists it: one per write, whatever door it came
 * through, its records (the control plane's, kube-apiserver's audit event, the informer's) folded into one.
 */
export interface ChangeItem {
  id: number;
  at: string;
  /**
   * The token's name or the person's username (control-plane door), or the user kube-apiserver named; empty
   * when unknown.
   */
  actor: string;
  /** The caller's role for the control-plane door; null for the others. */
  role: string | null;
  /**
   * The actor's address (their identity's email) and groups, and how they signed in, for the control-plane door;
   * null for the other doors (see kubeUser) and for changes recorded before the audit named people. Groups are
   * null for a static token, which names none.
   */
  actorEmail: string | null;
  actorGroups: string[] | null;
  authenticatedBy: AuthenticatedBy | null;
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
  door: ChangeDoor;
  /** What recorded it (controlplane, audit-webhook, audit-log, informer), first record first. */
  sources: string[];
  auditId: string | null;
  /** The user kube-apiserver saw (for the control-plane door, the control plane's own) and their groups. */
  kubeUser: string | null;
  kubeGroups: string[] | null;
  /** Who impersonated the actor. */
  impersonator: string | null;
  /**
   * Who kube-apiserver's audit says the write was made as, from its own record of the change: the user, or for an
   * impersonated write the impersonated user (then `impersonator` made the request). Null when kube-apiserver's
   * audit has not recorded the change.
   */
  kubeActor: string | null;
  fieldManager: string | null;
  generation: number | null;
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
  /** The namespace this process watches (WATCH_NAMESPACE; the first, when it watches several), or null. */
  watchNamespace: string | null;
  /** Every namespace this process watches (WATCH_NAMESPACE), or null for all. Older servers omit it. */
  watchNamespaces?: string[] | null;
  /** The normalised prefixes spec.image must fall under (IMAGE_ALLOWLIST); null: any image. Older servers omit it. */
  imageAllowlist?: string[] | null;
  /**
   * Who decides what the caller may do: our roles, or the cluster's RBAC (AUTHORIZATION=kubernetes; then `role`
   * and both namespace lists summarise SubjectAccessReviews for the caller). Older servers omit it: `roles`.
   */
  authorization?: 'roles' | 'kubernetes';
  /**
   * Where the caller may change Nginxes, when that differs from where it may see them (`namespaces`); null for
   * every namespace. Absent: the same as `namespaces`.
   */
  writableNamespaces?: string[] | null;
}

/** One revision of an Nginx, as `/controlplane/v1/namespaces/{ns}/nginxes/{name}/revisions` lists it. */
export interface RevisionItem {
  /** 1, 2, 3 … in the order the revisions were (last) rolled out to. */
  revision: number;
  /** The pod template hash: the pods' `mycompany.com/revision`. */
  hash: string;
  template: NginxPodTemplate;
  /** When the ControllerRevision was created (RFC 3339). */
  created: string;
  /** Whether this is the spec's revision now. */
  current: boolean;
  /**
   * The change that introduced it (the latest that moved the template to it), whatever door it came through,
   * when audited. `role` is the token's for the control-plane door, null for the others.
   */
  change: { actor: string; role: string | null; door: ChangeDoor; verb: string; at: string } | null;
}

/** The revisions of one Nginx, as `GET /controlplane/v1/namespaces/{ns}/nginxes/{name}/revisions` answers. */
export interface RevisionList {
  apiVersion: typeof CONTROLPLANE_API_VERSION;
  kind: 'RevisionList';
  /** The resourceVersion of the ControllerRevisions' list. */
  metadata: { resourceVersion?: string };
  /** The Nginx the list was read with (its resourceVersion is the one a rollback should be conditioned on). */
  nginx: { namespace: string; name: string; uid: string; resourceVersion: string };
  items: RevisionItem[];
}

/** The kinds of entries an Nginx's timeline holds. */
export const TIMELINE_KINDS = [
  'change',
  'reconcile',
  'event',
  'pod',
  'condition',
  'pod-write',
  'gap',
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** Kept evidence as the timeline shows it: an Event, a pod's transition, a condition change, a pod write, a gap. */
export interface TimelineEvidence {
  what: string;
  pod: string | null;
  podUid: string | null;
  node: string | null;
  reason: string | null;
  message: string | null;
  actor: string | null;
  type: string | null;
  count: number | null;
}

/**
 * One entry of an Nginx's causal timeline (/controlplane/v1/namespaces/{ns}/nginxes/{name}/timeline): a change
 * (any door), a reconcile that acted or failed, or kept evidence. `id` is `<kind>/<n>`, stable and unique;
 * `causes` names the ids of the entries that led to it, where known.
 */
export interface TimelineItem {
  id: string;
  kind: TimelineKind;
  at: string;
  /** The Nginx object (uid) the entry is about, when known: a recreated Nginx of the same name is another. */
  nginxUid: string | null;
  causes: string[];
  change?: ChangeItem;
  reconcile?: ReconcileItem;
  evidence?: TimelineEvidence;
}

/** A page of an Nginx's timeline. */
export interface TimelineList {
  apiVersion: string;
  kind: 'TimelineList';
  metadata: { resourceVersion?: string; continue?: string };
  items: TimelineItem[];
}

/** /controlplane/v1/namespaces/{ns}/nginxes/{name}/pods/{pod}/why: from the pod back to what caused it. */
export interface PodWhy {
  apiVersion: string;
  kind: 'PodWhy';
  pod: string;
  /** The pod's own entry first, then each entry's first cause, to the change or the pod write at the root. */
  chain: TimelineItem[];
  /** Who the chain ends at; null when the trail does not know. */
  actor: string | null;
  door: string | null;
}
