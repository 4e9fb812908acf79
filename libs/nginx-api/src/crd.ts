import {
  NGINX_CRD_NAME,
  NGINX_GROUP,
  NGINX_KIND,
  NGINX_LIST_KIND,
  NGINX_PLURAL,
  NGINX_SHORT_NAMES,
  NGINX_SINGULAR,
  NGINX_VERSION,
} from './names.js';
import { nginxSchema } from './schema.js';

/** The CustomResourceDefinition of nginxes.mycompany.com, built from the schema (deploy/crd holds its YAML). */
export function nginxCrd() {
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
          schema: { openAPIV3Schema: nginxSchema },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
          additionalPrinterColumns: [
            { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas', description: 'Pods asked for' },
            {
              name: 'Current',
              type: 'integer',
              jsonPath: '.status.replicas',
              description: 'Pods that exist',
            },
            { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas', description: 'Pods ready' },
            { name: 'Image', type: 'string', jsonPath: '.spec.image' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}
