import {
  DEFAULT_IMAGE,
  NGINX_CRD_NAME,
  NGINX_GROUP,
  NGINX_KIND,
  NGINX_LIST_KIND,
  NGINX_PLURAL,
  NGINX_SHORT_NAMES,
  NGINX_SINGULAR,
  NGINX_VERSION,
} from './names.js';
import { imageAllowed, imageAllowlistRules, type ImageAllowlist } from './image-allowlist.js';
import { nginxSchema, type JsonSchema } from './schema.js';

export interface NginxCrdOptions {
  /** Adds CEL rules to spec.image so that the API server itself refuses images outside the allow-list. */
  imageAllowlist?: ImageAllowlist;
}

/**
 * The schema with the allow-list's rules on spec.image (a copy: nginxSchema itself never carries them). The API
 * server refuses a CRD whose default breaks its own rules, so where the allow-list does not admit the default
 * image, spec.image has no default and is required instead.
 */
function schemaWith(allowlist: ImageAllowlist | undefined): JsonSchema {
  if (!allowlist) return nginxSchema;
  const spec = nginxSchema.properties!.spec!;
  const { default: defaultImage, ...imageSchema } = spec.properties!.image!;
  const keepsDefault = imageAllowed(DEFAULT_IMAGE, allowlist);
  const image: JsonSchema = {
    ...(keepsDefault ? { ...imageSchema, default: defaultImage } : imageSchema),
    description: keepsDefault
      ? imageSchema.description
      : `Container image of every pod; required, as the image allow-list does not admit ${DEFAULT_IMAGE}.`,
    'x-kubernetes-validations': imageAllowlistRules(allowlist),
  };
  return {
    ...nginxSchema,
    properties: {
      ...nginxSchema.properties,
      spec: {
        ...spec,
        required: keepsDefault ? spec.required : [...(spec.required ?? []), 'image'],
        properties: { ...spec.properties, image },
      },
    },
  };
}

/**
 * The CustomResourceDefinition of nginxes.mycompany.com, built from the schema (deploy/crd holds its YAML, which
 * has no image allow-list).
 */
export function nginxCrd(options: NginxCrdOptions = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NGINX_CRD_NAME },
    spec: {
      group: NGINX_GROUP,
      scope: 'Namespaced',
      names: {
        kind: NGINX_KIND,
        listKind: NGINX_LIST_KIND,
        plural: NGINX_PLURAL,
        singular: NGINX_SINGULAR,
        shortNames: [...NGINX_SHORT_NAMES],
      },
      versions: [
        {
          name: NGINX_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schemaWith(options.imageAllowlist) },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
          // A Deployment's columns (its READY is "ready/desired", which a CRD column cannot compose: two columns).
          additionalPrinterColumns: [
            { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas', description: 'Pods asked for' },
            { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas', description: 'Pods ready' },
            {
              name: 'Up-to-date',
              type: 'integer',
              jsonPath: '.status.updatedReplicas',
              description: "Pods of the current spec's revision",
            },
            {
              name: 'Available',
              type: 'integer',
              jsonPath: '.status.availableReplicas',
              description: 'Pods ready for at least minReadySeconds',
            },
            { name: 'Image', type: 'string', jsonPath: '.spec.image' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}
