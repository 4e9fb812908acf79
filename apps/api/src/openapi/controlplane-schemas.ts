import {
  podTemplateSchema,
  type ChangeDoor,
  type LivePod,
  type PropertiesOf,
  type RevisionItem,
  type RevisionList,
} from '@ngx/nginx-api';

/**
 * The OpenAPI schemas of the control plane's own views. Each `properties` satisfies the shared type it describes,
 * so a field added to (or dropped from) the type fails to compile until its schema follows.
 */

type OpenApiSchema = Record<string, unknown>;

const change = {
  actor: { type: 'string' },
  role: { type: 'string', nullable: true },
  door: { type: 'string', enum: ['controlplane', 'kube-apiserver', 'unknown'] satisfies ChangeDoor[] },
  verb: { type: 'string' },
  at: { type: 'string', format: 'date-time' },
} satisfies PropertiesOf<NonNullable<RevisionItem['change']>, OpenApiSchema>;

const revisionItem = {
  revision: { type: 'integer', minimum: 1 },
  hash: {
    type: 'string',
    description: "The pod template hash (the pods' mycompany.com/revision).",
  },
  template: podTemplateSchema,
  created: { type: 'string', format: 'date-time' },
  current: { type: 'boolean', description: "Whether it is the spec's revision now." },
  change: {
    type: 'object',
    nullable: true,
    description: 'The latest write through this API that moved the template to it (null: none audited).',
    properties: change,
  },
} satisfies PropertiesOf<RevisionItem, OpenApiSchema>;

export const revisionListSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string', enum: ['controlplane/v1'] },
    kind: { type: 'string', enum: ['RevisionList'] },
    metadata: { type: 'object', properties: { resourceVersion: { type: 'string' } } },
    nginx: {
      type: 'object',
      properties: {
        namespace: { type: 'string' },
        name: { type: 'string' },
        uid: { type: 'string' },
        resourceVersion: { type: 'string' },
      } satisfies PropertiesOf<RevisionList['nginx'], OpenApiSchema>,
    },
    items: { type: 'array', items: { type: 'object', properties: revisionItem } },
  } satisfies PropertiesOf<RevisionList, OpenApiSchema>,
};

const podView = {
  name: { type: 'string' },
  uid: { type: 'string' },
  phase: { type: 'string' },
  ready: { type: 'boolean' },
  node: { type: 'string', nullable: true },
  restarts: { type: 'integer' },
  podIP: { type: 'string', nullable: true },
  createdAt: { type: 'string', format: 'date-time', nullable: true },
  ageSeconds: { type: 'integer', nullable: true },
  terminating: { type: 'boolean' },
  deletionTimestamp: { type: 'string', format: 'date-time', nullable: true },
  resourceVersion: { type: 'string' },
  revision: { type: 'string', nullable: true, description: 'the pod template revision it runs' },
} satisfies PropertiesOf<LivePod, OpenApiSchema>;

export const podViewListSchema = {
  type: 'object',
  properties: {
    metadata: { type: 'object', properties: { resourceVersion: { type: 'string' } } },
    items: { type: 'array', items: { type: 'object', properties: podView } },
  },
};
