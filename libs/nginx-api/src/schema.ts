import { DEFAULT_IMAGE, MAX_REPLICAS, MIN_REPLICAS } from './names.js';

/** A CEL validation rule of a CRD schema (`x-kubernetes-validations`); `self` is the value it sits on. */
export interface ValidationRule {
  rule: string;
  message?: string;
  /** The cause's reason when the rule fails (FieldValueInvalid unless said). */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

/** A structural OpenAPI v3 schema, as the CRD's openAPIV3Schema takes it. */
export type JsonSchema = {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: string[];
  default?: unknown;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: ValidationRule[];
};

const condition: JsonSchema = {
  type: 'object',
  description: 'A standard condition (metav1.Condition).',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    type: { type: 'string', description: 'Available, Progressing or ReplicaFailure.', maxLength: 316 },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    reason: {
      type: 'string',
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    },
    message: { type: 'string', maxLength: 32768 },
  },
};

const count = (description: string): JsonSchema => ({
  type: 'integer',
  format: 'int32',
  minimum: 0,
  description,
});

/**
 * The Nginx schema: the single source for the CRD manifest (deploy/crd), the API's server-side validation and the
 * UI's forms. Only `spec` is writable by users; `status` belongs to the controller.
 */
export const nginxSchema: JsonSchema = {
  type: 'object',
  description: 'Runs spec.replicas nginx pods.',
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      description: 'What to run.',
      required: ['replicas'],
      properties: {
        replicas: {
          type: 'integer',
          format: 'int32',
          minimum: MIN_REPLICAS,
          maximum: MAX_REPLICAS,
          description: `Number of nginx pods to run, from ${MIN_REPLICAS} to ${MAX_REPLICAS}.`,
        },
        image: {
          type: 'string',
          minLength: 1,
          maxLength: 512,
          default: DEFAULT_IMAGE,
          description: `Container image of every pod; defaults to ${DEFAULT_IMAGE}.`,
        },
      },
    },
    status: {
      type: 'object',
      description: 'What the controller observed. Written through the status subresource only.',
      properties: {
        replicas: count('Pods that exist and are not terminating or finished.'),
        readyReplicas: count('Of those, pods whose Ready condition is True.'),
        availableReplicas: count(
          'Of those, pods ready for at least minReadySeconds (0): equal to readyReplicas.',
        ),
        observedGeneration: {
          type: 'integer',
          format: 'int64',
          minimum: 0,
          description: 'The generation last acted on.',
        },
        message: { type: 'string', maxLength: 1024, description: 'A short human sentence about the state.' },
        selector: { type: 'string', description: 'Label selector of the pods, for the scale subresource.' },
        conditions: {
          type: 'array',
          items: condition,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
        },
      },
    },
  },
};

/** The spec's field schemas, for forms that edit an Nginx. */
export const nginxSpecSchema = nginxSchema.properties!.spec!;
