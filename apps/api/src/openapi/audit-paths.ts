import { CHANGE_COLUMNS, RECONCILE_COLUMNS } from '../audit/audit-items.js';
import { AUTHENTICATED_BY } from '@ngx/nginx-api';
import {
  CHANGE_RESULTS,
  DEFAULT_LIMIT,
  FORMATS,
  MAX_LIMIT,
  RECONCILE_RESULTS,
} from '../audit/audit-params.js';
import { CHANGE_SUBRESOURCES, CHANGE_VERBS } from '../audit/change-record.js';
import { REFUSAL_CODES, REFUSAL_DOORS } from '../auth/refusal-recorder.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';
import { errors as errorResponses, queryParam as query, schemaRef as ref } from './openapi-builders.js';

/**
 * The audit endpoints' part of the OpenAPI document: their paths and schemas.
 * Enumerations come from the same constants the parameter parser checks against.
 */

type Schema = Record<string, unknown>;

const nullable = (type: string, extra: Schema = {}) => ({ type, nullable: true, ...extra });
const time = { type: 'string', format: 'date-time' } as const;

const keyParameters = [
  query('namespace', 'Only this namespace.'),
  query('name', 'Only Nginxes of this name.'),
];
const windowParameters = [
  query('since', 'RFC 3339 time: rows at or after it.', time),
  query('until', 'RFC 3339 time: rows before it.', time),
];
const pagingParameters = [
  query('limit', 'Page size (ignored by exports).', {
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    default: DEFAULT_LIMIT,
  }),
  query('continue', '`metadata.continue` of the previous page, with the same filters (ignored by exports).'),
  query(
    'format',
    '`json`: one page. `ndjson`, `csv`: every matching row as an attachment. Without it, `Accept: ' +
      'application/x-ndjson` or `Accept: text/csv` choose the export.',
    { type: 'string', enum: [...FORMATS], default: 'json' },
  ),
];

const errors = errorResponses([400, 'A bad query parameter, named in `details.causes[0].field`'], 401);

const listResponses = (list: string) => ({
  '200': {
    description: 'A page as JSON, or every matching row as NDJSON or CSV (RFC 4180, with a header row)',
    content: {
      'application/json': { schema: ref(list) },
      'application/x-ndjson': { schema: { type: 'string' } },
      'text/csv': { schema: { type: 'string' } },
    },
  },
  ...errors,
});

const listOf = (item: string, kind: string, description: string) => ({
  type: 'object',
  description,
  required: ['apiVersion', 'kind', 'metadata', 'items'],
  properties: {
    apiVersion: { type: 'string', enum: [CONTROLPLANE_API_VERSION] },
    kind: { type: 'string', enum: [kind] },
    metadata: {
      type: 'object',
      properties: { continue: { type: 'string', description: 'Present when more rows match.' } },
    },
    items: { type: 'array', items: ref(item) },
  },
});

const reconcileRecord = {
  type: 'object',
  description: 'A reconcile that acted or failed.',
  properties: {
    id: { type: 'integer' },
    startedAt: time,
    finishedAt: time,
    durationMs: { type: 'integer' },
    namespace: { type: 'string' },
    name: { type: 'string' },
    uid: nullable('string'),
    generation: nullable('integer'),
    resourceVersion: nullable('string'),
    trigger: { type: 'string' },
    desiredReplicas: nullable('integer'),
    activeReplicas: nullable('integer'),
    readyReplicas: nullable('integer'),
    actions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          kind: {
            type: 'string',
            enum: [
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
            ],
          },
          pod: { type: 'string' },
          object: { type: 'string' },
          reason: { type: 'string' },
          revision: { type: 'string' },
        },
      },
    },
    result: { type: 'string', enum: [...RECONCILE_RESULTS] },
    error: nullable('string'),
    attempt: { type: 'integer' },
    instanceId: { type: 'string' },
  },
} satisfies Schema & { properties: Record<(typeof RECONCILE_COLUMNS)[number], unknown> };

const changeRecord = {
  type: 'object',
  description:
    'A write to an Nginx, whatever door it came through and whatever its outcome: its records (the control ' +
    "plane's, kube-apiserver's audit event, the informer's) folded into one.",
  properties: {
    id: { type: 'integer' },
    at: time,
    actor: {
      type: 'string',
      description:
        "The token's name (never the token) or the person's username for the control-plane door, else the " +
        'user kube-apiserver named (for an impersonated request, the impersonated user); empty when unknown.',
    },
    role: nullable('string', { description: "The caller's role; null for the other doors." }),
    actorEmail: nullable('string', {
      description:
        "The actor's address (their identity's email), for the control-plane door; null when none.",
    }),
    actorGroups: nullable('array', {
      items: { type: 'string' },
      description:
        "The actor's groups as they signed in, for the control-plane door; null for a static token and the " +
        'other doors.',
    }),
    authenticatedBy: nullable('string', {
      enum: [...AUTHENTICATED_BY, null],
      description:
        'How the actor signed in (control-plane door): a static token, an OpenID Connect ID token or session, ' +
        'or a Kubernetes ServiceAccount token; null for the other doors and for changes recorded before.',
    }),
    verb: { type: 'string', enum: [...CHANGE_VERBS] },
    namespace: { type: 'string' },
    name: { type: 'string' },
    subresource: nullable('string', { enum: [...CHANGE_SUBRESOURCES, null] }),
    patchType: nullable('string', { description: 'Media type of a patch or apply.' }),
    specBefore: nullable('object', { description: 'The spec before the write.' }),
    specAfter: nullable('object', { description: 'The spec after the write (null on delete or failure).' }),
    code: { type: 'integer', description: 'HTTP status answered.' },
    reason: nullable('string'),
    message: nullable('string'),
    uid: nullable('string'),
    resourceVersion: nullable('string'),
    userAgent: nullable('string'),
    door: { type: 'string', enum: ['controlplane', 'kube-apiserver', 'unknown'] },
    sources: {
      type: 'array',
      items: { type: 'string', enum: ['controlplane', 'audit-webhook', 'audit-log', 'informer'] },
      description: 'What recorded the change, first record first.',
    },
    auditId: nullable('string', { description: "kube-apiserver's audit ID of the request." }),
    kubeUser: nullable('string', {
      description: 'The user kube-apiserver saw (for the control-plane door, the control plane itself).',
    }),
    kubeGroups: nullable('array', { items: { type: 'string' } }),
    impersonator: nullable('string', { description: 'Who impersonated the actor.' }),
    kubeActor: nullable('string', {
      description:
        "Who kube-apiserver's audit says the write was made as (for an impersonated write, the impersonated " +
        "user); null when kube-apiserver's audit has not recorded the change.",
    }),
    fieldManager: nullable('string'),
    generation: nullable('integer', { description: 'metadata.generation after the write.' }),
  },
} satisfies Schema & { properties: Record<(typeof CHANGE_COLUMNS)[number], unknown> };

export const auditPaths = {
  '/controlplane/v1/audit/reconciles': {
    get: {
      summary: 'Reconcile records, newest first, paged or exported',
      tags: ['audit'],
      parameters: [
        ...keyParameters,
        query('result', 'Only this result.', { type: 'string', enum: [...RECONCILE_RESULTS] }),
        ...windowParameters,
        ...pagingParameters,
      ],
      responses: listResponses('ReconcileRecordList'),
    },
  },
  '/controlplane/v1/audit/changes': {
    get: {
      summary: 'Change records (writes made through the REST API), newest first, paged or exported',
      tags: ['audit'],
      parameters: [
        ...keyParameters,
        query('actor', 'Only writes by the token, person or user of this name.'),
        query('verb', 'Only this verb.', { type: 'string', enum: [...CHANGE_VERBS] }),
        query('result', '`success`: a 2xx answer; `failure`: any other.', {
          type: 'string',
          enum: [...CHANGE_RESULTS],
        }),
        ...windowParameters,
        ...pagingParameters,
      ],
      responses: listResponses('ChangeRecordList'),
    },
  },
  '/controlplane/v1/audit/webhook': {
    post: {
      summary:
        "kube-apiserver's audit webhook backend (batch mode): an audit.k8s.io/v1 EventList; authenticated by a " +
        'client certificate from AUDIT_WEBHOOK_CLIENT_CA_FILE with an allowed common name, no token',
      tags: ['audit'],
      security: [],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': { description: 'Stored (a Status of Success)' },
        ...errorResponses(
          [400, 'No EventList, or items that are no audit events (the others stored)'],
          [401, 'No client certificate, or one of another CA'],
          [403, 'A client certificate of another name'],
          [413, 'A batch over 32 MiB'],
          [429, 'The audit queue is full, or too many batches at once: sent again later'],
          [503, 'The app does not know its own identity yet: sent again later'],
        ),
      },
    },
  },
  '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/timeline': {
    get: {
      summary:
        "An Nginx's changes (any door), reconciles and kept evidence (Events, pod transitions, condition changes, " +
        'pod writes) in one order, newest first, each with its causes',
      tags: ['audit'],
      parameters: [
        { name: 'namespace', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
        query('kind', 'Comma-separated kinds: change, reconcile, event, pod, condition, pod-write.'),
        query('uid', 'Only entries of this Nginx object (a recreated Nginx of the same name is another).'),
        ...windowParameters,
        ...pagingParameters.filter((parameter) => parameter.name !== 'format'),
      ],
      responses: {
        '200': {
          description: 'A TimelineList page',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        ...errors,
      },
    },
  },
  '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/pods/{pod}/why': {
    get: {
      summary:
        'The chain from a pod (alive, or deleted within the retention) back to the change or the person that ' +
        'caused its creation or deletion, with the actor',
      tags: ['audit'],
      parameters: ['namespace', 'name', 'pod'].map((name) => ({
        name,
        in: 'path' as const,
        required: true,
        schema: { type: 'string' as const },
      })),
      responses: {
        '200': { description: 'A PodWhy', content: { 'application/json': { schema: { type: 'object' } } } },
        ...errorResponses([404, 'The audit trail has no entry of the pod'], 401),
      },
    },
  },
  '/controlplane/v1/audit/noops': {
    get: {
      summary: 'Reconciles that changed nothing, counted per Nginx',
      tags: ['audit'],
      parameters: keyParameters,
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: ref('ReconcileNoopList') } } },
        ...errors,
      },
    },
  },
  '/controlplane/v1/audit/refusals': {
    get: {
      summary:
        'Refused requests (401, 403, refused sign-ins and live handshakes), counted per minute window, door, ' +
        'code, reason, subject and client address; newest window first, paged. Needs the rights to read the ' +
        "whole cluster's audit (no namespace parameter)",
      tags: ['audit'],
      parameters: [
        query('door', 'Only refusals at this door.', { type: 'string', enum: [...REFUSAL_DOORS] }),
        query('code', `Only refusals answered with this status: ${REFUSAL_CODES.join(', ')}.`, {
          type: 'integer',
        }),
        query('since', 'RFC 3339 time: counts with a refusal at or after it.', time),
        query('until', 'RFC 3339 time: counts with a refusal before it.', time),
        ...pagingParameters.filter((parameter) => parameter.name !== 'format'),
      ],
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: ref('RefusalCountList') } } },
        ...errorResponses([400, 'A bad query parameter, named in `details.causes[0].field`'], 401, 403),
      },
    },
  },
};

export const auditSchemas = {
  ReconcileRecord: reconcileRecord,
  ReconcileRecordList: listOf('ReconcileRecord', 'ReconcileRecordList', 'A page of reconcile records.'),
  ChangeRecord: changeRecord,
  ChangeRecordList: listOf('ChangeRecord', 'ChangeRecordList', 'A page of change records.'),
  ReconcileNoop: {
    type: 'object',
    properties: {
      namespace: { type: 'string' },
      name: { type: 'string' },
      count: { type: 'integer' },
      lastAt: time,
    },
  },
  ReconcileNoopList: listOf('ReconcileNoop', 'ReconcileNoopList', 'No-op counts by namespace and name.'),
  RefusalCount: {
    type: 'object',
    description:
      'Refused requests of one minute window and key. Never holds a token, cookie or code; the address ' +
      '`(overflow)` counts refusals past the window’s bound on distinct keys (their subject and address dropped).',
    properties: {
      id: { type: 'integer' },
      windowStart: time,
      door: { type: 'string', enum: [...REFUSAL_DOORS] },
      code: { type: 'integer', enum: [...REFUSAL_CODES] },
      reason: {
        type: 'string',
        description: 'A short category: no-credential, bad-token, role, rbac-denied, …',
      },
      subject: { type: 'string', description: 'Who was refused, when known; empty otherwise.' },
      address: { type: 'string' },
      count: { type: 'integer' },
      firstAt: time,
      lastAt: time,
      message: {
        type: 'string',
        description: 'One refusal’s message, as an example (at most 512 characters).',
      },
    },
  },
  RefusalCountList: listOf('RefusalCount', 'RefusalCountList', 'A page of refused-request counts.'),
};
