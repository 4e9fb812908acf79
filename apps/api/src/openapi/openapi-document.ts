import { NGINX_API_VERSION, NGINX_KIND, nginxSchema } from '@ngx/nginx-api';
import { auditPaths, auditSchemas } from './audit-paths.js';
import { podViewListSchema, revisionListSchema } from './controlplane-schemas.js';
import {
  errors,
  json,
  pathParam as path,
  queryParam as query,
  schemaRef,
  type Operation,
} from './openapi-builders.js';

/**
 * The OpenAPI 3 description of the whole REST surface (served at /openapi.json, rendered at /openapi/docs):
 * the Kubernetes-style Nginx endpoints, discovery, the control plane's own endpoints and the operations ones.
 * Written out rather than generated from decorators because most routes relay the API server's own
 * representations; the Nginx schema comes from the one shared source in @ngx/nginx-api.
 */

const namespace = path('namespace', 'Namespace (a DNS-1123 label).');
const name = path('name', 'Name of the Nginx (a DNS-1123 label, at most 63 characters).');
const subresource = {
  ...path('subresource', '`status` or `scale`.'),
  schema: { type: 'string' as const, enum: ['status', 'scale'] },
};

const listParameters = [
  query('labelSelector', 'Label selector, e.g. `team=web,tier in (a,b)`.'),
  query('fieldSelector', '`metadata.name` and `metadata.namespace`, with `=`, `==` or `!=`.'),
  query('limit', 'Page size (relayed to the API server).', { type: 'integer', minimum: 1 }),
  query('continue', 'Continue token from the previous page.'),
  query(
    'resourceVersion',
    "`0` serves from the control plane's cache; unset is a consistent read from the API server.",
  ),
  query('resourceVersionMatch', '`NotOlderThan` or `Exact`.'),
  query('watch', 'Stream watch events (newline-delimited JSON) instead of a list.', { type: 'boolean' }),
  query('allowWatchBookmarks', 'Ask for BOOKMARK events while watching.', { type: 'boolean' }),
  query('timeoutSeconds', 'End the watch after this many seconds.', { type: 'integer', minimum: 0 }),
  query('sendInitialEvents', 'Start the watch with the current objects as ADDED events.', {
    type: 'boolean',
  }),
];
const writeParameters = [
  query('dryRun', '`All`: validate and answer without storing.'),
  query('fieldManager', "Who manages the fields written (defaults to the token's name; required for apply)."),
  query('fieldValidation', '`Strict` (default here: unknown fields are refused), `Warn` or `Ignore`.'),
];

const nginxRef = schemaRef('Nginx');
const body = (schema: unknown, types: string[]) => ({
  required: true,
  content: Object.fromEntries(types.map((type) => [type, { schema }])),
});

const op = (summary: string, tags: string[], extra: Operation): Operation => ({ summary, tags, ...extra });

const nginxPaths = {
  '/apis/mycompany.com/v1/nginxes': {
    get: op('List or watch Nginxes in all namespaces', ['nginxes'], {
      parameters: listParameters,
      responses: { '200': json(schemaRef('NginxList')), ...errors(400, 401, 429, 503) },
    }),
  },
  '/apis/mycompany.com/v1/namespaces/{namespace}/nginxes': {
    parameters: [namespace],
    get: op('List or watch Nginxes in a namespace', ['nginxes'], {
      parameters: listParameters,
      responses: { '200': json(schemaRef('NginxList')), ...errors(400, 401, 429, 503) },
    }),
    post: op('Create an Nginx (JSON or YAML)', ['nginxes'], {
      parameters: writeParameters,
      requestBody: body(nginxRef, ['application/json', 'application/yaml']),
      responses: { '201': json(nginxRef, 'Created'), ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
    }),
  },
  '/apis/mycompany.com/v1/namespaces/{namespace}/nginxes/{name}': {
    parameters: [namespace, name],
    get: op('Read an Nginx', ['nginxes'], {
      parameters: [listParameters[4]],
      responses: { '200': json(nginxRef), ...errors(400, 401, 404, 429) },
    }),
    put: op('Replace an Nginx', ['nginxes'], {
      parameters: writeParameters,
      requestBody: body(nginxRef, ['application/json', 'application/yaml']),
      responses: { '200': json(nginxRef), ...errors(400, 401, 403, 404, 409, 413, 415, 422, 429) },
    }),
    patch: op('Patch an Nginx: JSON merge patch, JSON patch, or server-side apply', ['nginxes'], {
      parameters: [
        ...writeParameters,
        query('force', 'Apply: take over fields other managers own.', { type: 'boolean' }),
      ],
      requestBody: body({ type: 'object' }, [
        'application/merge-patch+json',
        'application/json-patch+json',
        'application/apply-patch+yaml',
      ]),
      responses: { '200': json(nginxRef), ...errors(400, 401, 403, 404, 409, 413, 415, 422, 429) },
    }),
    delete: op('Delete an Nginx (its pods follow through the garbage collector)', ['nginxes'], {
      parameters: [
        query('propagationPolicy', '`Foreground`, `Background` (default) or `Orphan`.'),
        query('gracePeriodSeconds', 'Grace period.', { type: 'integer', minimum: 0 }),
        query('dryRun', '`All`: answer without deleting.'),
      ],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: schemaRef('DeleteOptions') } },
      },
      responses: { '200': json(nginxRef), ...errors(400, 401, 403, 404, 409, 429) },
    }),
  },
  '/apis/mycompany.com/v1/namespaces/{namespace}/nginxes/{name}/{subresource}': {
    parameters: [namespace, name, subresource],
    get: op('Read the status or the scale (autoscaling/v1 Scale) of an Nginx', ['nginxes'], {
      responses: {
        '200': json({ oneOf: [nginxRef, schemaRef('Scale')] }),
        ...errors(401, 404),
      },
    }),
    put: op(
      'Replace the scale (editor) or the status (admin only: status belongs to the controller)',
      ['nginxes'],
      {
        parameters: writeParameters,
        requestBody: body({ oneOf: [nginxRef, schemaRef('Scale')] }, ['application/json']),
        responses: {
          '200': json({ oneOf: [nginxRef, schemaRef('Scale')] }),
          ...errors(400, 401, 403, 404, 409, 422),
        },
      },
    ),
    patch: op('Patch the scale or the status', ['nginxes'], {
      parameters: writeParameters,
      requestBody: body({ type: 'object' }, [
        'application/merge-patch+json',
        'application/json-patch+json',
        'application/apply-patch+yaml',
      ]),
      responses: {
        '200': json({ oneOf: [nginxRef, schemaRef('Scale')] }),
        ...errors(400, 401, 403, 404, 409, 422),
      },
    }),
  },
};

const discoveryPaths = Object.fromEntries(
  [
    ['/version', "The Kubernetes API server's version"],
    ['/api', 'Core group versions (empty: only the Nginx group is served)'],
    ['/apis', 'APIGroupList with mycompany.com'],
    ['/apis/mycompany.com', 'APIGroup'],
    ['/apis/mycompany.com/v1', 'APIResourceList: nginxes, nginxes/status, nginxes/scale (short name ngx)'],
    ['/openapi/v3', 'OpenAPI v3 index of the group, for kubectl'],
  ].map(([route, summary]) => [
    route,
    { get: op(summary!, ['discovery'], { responses: { '200': json({ type: 'object' }), ...errors(401) } }) },
  ]),
);

const controlPlanePaths = {
  '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/pods': {
    parameters: [namespace, name],
    get: op("The pods of an Nginx as the UI shows them (from the controller's cache)", ['control plane'], {
      responses: { '200': json(schemaRef('PodViewList')), ...errors(400, 401, 404, 503) },
    }),
  },
  '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/revisions': {
    parameters: [namespace, name],
    get: op(
      'The revisions of an Nginx (its ControllerRevisions, newest first) and the write that introduced each',
      ['control plane'],
      { responses: { '200': json(schemaRef('RevisionList')), ...errors(400, 401, 403, 404, 429, 503) } },
    ),
  },
  '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/revisions/{revision}/rollback': {
    parameters: [
      namespace,
      name,
      {
        ...path('revision', 'The revision number, as the revisions list shows it.'),
        schema: { type: 'integer' as const, minimum: 1 },
      },
    ],
    post: op(
      "Roll back: write the revision's pod template into the spec as the caller (editor); recorded as verb rollback",
      ['control plane'],
      {
        parameters: [query('dryRun', '`All`: validate and answer without storing.')],
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  resourceVersion: {
                    type: 'string',
                    description:
                      "The Nginx's metadata.resourceVersion as the caller read it: 409 Conflict, and nothing " +
                      'written, when the Nginx changed since.',
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': json(nginxRef, 'The Nginx after the rollback (unchanged when it had that template already)'),
          ...errors(
            [400, 'Malformed body, or a revision number that is not a positive integer'],
            401,
            403,
            [404, 'No such Nginx, or no such revision of it'],
            [
              409,
              'Conflict: the Nginx changed since the resourceVersion given, or the revision has no spec.tls while spec.ingress.tls is true',
            ],
            413,
            415,
            422,
            429,
            503,
          ),
        },
      },
    ),
  },
  '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/promote': {
    parameters: [namespace, name],
    post: op(
      'Promote the canary past its current step (annotation mycompany.com/promote) as the caller (editor); recorded as verb promote',
      ['control plane'],
      {
        parameters: [
          query('full', '`true`: past every step left.'),
          query('step', 'The step meant (status.canary.step): 409 when it is no longer the current one.'),
          query('dryRun', '`All`: validate and answer without storing.'),
        ],
        responses: {
          '200': json(nginxRef, 'The Nginx with the request recorded'),
          ...errors(400, 401, 403, 404, [409, 'No canary in progress, or not at the step named'], 429, 503),
        },
      },
    ),
  },
  '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/abort': {
    parameters: [namespace, name],
    post: op(
      'Abort the canary: every pod back to the stable revision (annotation mycompany.com/abort) as the caller (editor); recorded as verb abort',
      ['control plane'],
      {
        parameters: [query('dryRun', '`All`: validate and answer without storing.')],
        responses: {
          '200': json(nginxRef, 'The Nginx with the request recorded'),
          ...errors(400, 401, 403, 404, [409, 'No canary in progress'], 429, 503),
        },
      },
    ),
  },
};

const operationsPaths = {
  '/healthz': {
    get: op('Liveness (no token)', ['operations'], {
      security: [],
      responses: { '200': json({ type: 'object' }) },
    }),
  },
  '/readyz': {
    get: op(
      'Readiness: API server, database, caches synced, leadership (no token; with one, also addresses and errors)',
      ['operations'],
      {
        security: [],
        responses: {
          '200': json({ type: 'object' }),
          '503': json({ type: 'object' }, 'Not ready: which checks failed'),
        },
      },
    ),
  },
  '/controlplane/v1/admission/nginxes': {
    post: op(
      "kube-apiserver's validating admission webhook for Nginxes: an admission.k8s.io/v1 AdmissionReview, answered " +
        'with one that allows the object or refuses it with our 422 Status (no token; it only judges the object)',
      ['operations'],
      {
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          '200': json({ type: 'object' }, 'The AdmissionReview with its response'),
          ...errors([400, 'No AdmissionReview'], [413, 'A review over 8 MiB'], 415, [
            429,
            'Too many reviews at once (kube-apiserver applies failurePolicy: Ignore)',
          ]),
        },
      },
    ),
  },
  '/metrics': {
    get: op('Prometheus metrics (no token)', ['operations'], {
      security: [],
      responses: {
        '200': { description: 'Prometheus text', content: { 'text/plain': { schema: { type: 'string' } } } },
      },
    }),
  },
};

const schemas = {
  Nginx: {
    ...nginxSchema,
    'x-kubernetes-group-version-kind': [{ group: 'mycompany.com', version: 'v1', kind: NGINX_KIND }],
  },
  NginxList: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string', enum: [NGINX_API_VERSION] },
      kind: { type: 'string', enum: ['NginxList'] },
      metadata: {
        type: 'object',
        properties: { resourceVersion: { type: 'string' }, continue: { type: 'string' } },
      },
      items: { type: 'array', items: nginxRef },
    },
  },
  Scale: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string', enum: ['autoscaling/v1'] },
      kind: { type: 'string', enum: ['Scale'] },
      metadata: { type: 'object' },
      spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 } } },
      status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
    },
  },
  DeleteOptions: {
    type: 'object',
    properties: {
      propagationPolicy: { type: 'string', enum: ['Foreground', 'Background', 'Orphan'] },
      gracePeriodSeconds: { type: 'integer', minimum: 0 },
      preconditions: {
        type: 'object',
        properties: { uid: { type: 'string' }, resourceVersion: { type: 'string' } },
      },
      dryRun: { type: 'array', items: { type: 'string' } },
    },
  },
  Status: {
    type: 'object',
    description: 'A Kubernetes Status: every error, from the API server or from the control plane.',
    properties: {
      kind: { type: 'string', enum: ['Status'] },
      apiVersion: { type: 'string' },
      status: { type: 'string', enum: ['Failure', 'Success'] },
      message: { type: 'string' },
      reason: { type: 'string' },
      code: { type: 'integer' },
      details: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          group: { type: 'string' },
          kind: { type: 'string' },
          retryAfterSeconds: { type: 'integer' },
          causes: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                reason: { type: 'string' },
                message: { type: 'string' },
                field: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
  RevisionList: revisionListSchema,
  PodViewList: podViewListSchema,
};

/** The whole document. */
export function openApiDocument() {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Nginx control plane',
      version: '1',
      description:
        'Kubernetes-style API for the mycompany.com/v1 Nginx resource, relayed to and checked against the ' +
        "Kubernetes API server, plus the control plane's own endpoints (pods, audit). Every endpoint but " +
        '/healthz, /readyz and /metrics needs `Authorization: Bearer <token>`; viewer tokens read, editor tokens ' +
        'also write Nginxes, admin tokens may do everything. Errors are Kubernetes `Status` objects.',
    },
    tags: [
      { name: 'nginxes', description: 'The Nginx resource, as the Kubernetes API serves it' },
      { name: 'discovery', description: 'For kubectl and client libraries' },
      { name: 'control plane', description: 'What the UI needs beyond the Kubernetes API' },
      { name: 'audit', description: 'Reconcile records and change records' },
      { name: 'operations', description: 'Probes and metrics' },
    ],
    security: [{ bearer: [] }],
    paths: {
      ...nginxPaths,
      ...discoveryPaths,
      ...controlPlanePaths,
      ...auditPaths,
      ...operationsPaths,
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ...schemas, ...auditSchemas },
    },
  };
}
