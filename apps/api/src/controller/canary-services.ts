import type { V1Service } from '@kubernetes/client-node';
import { DEFAULT_PORT, DEFAULT_SERVICE_PORT, LABEL_REVISION, type Nginx } from '@ngx/nginx-api';
import { ownedLabels } from './owned-objects.js';
import { controllerReference, podSelector } from './pod-builder.js';

/** Marks the Services a canary's traffic routing owns, and which of the two each is. */
export const LABEL_SERVICE_ROLE = 'mycompany.com/service-role';
export type ServiceRole = 'stable' | 'canary';

/** The names of the stable and canary Services: stableService and canaryService, else `<name>-stable|-canary`. */
export function canaryServiceNames(nginx: Nginx): Record<ServiceRole, string> {
  const canary = nginx.spec.strategy?.canary;
  const name = nginx.metadata.name!;
  return {
    stable: canary?.stableService ?? `${name}-stable`,
    canary: canary?.canaryService ?? `${name}-canary`,
  };
}

/**
 * The two Services a canary with trafficRouting keeps: the stable one selecting the pods of `revisions.stable`
 * (status.currentRevision), the canary one those of `revisions.canary` (the update revision); port `http` to
 * spec.port as the Nginx's own Service. None without trafficRouting.
 */
export function canaryServicesFor(
  nginx: Nginx,
  revisions: Record<ServiceRole, string>,
): (V1Service & { metadata: { name: string } })[] {
  if (nginx.spec.strategy?.type !== 'Canary' || !nginx.spec.strategy.canary?.trafficRouting) return [];
  const names = canaryServiceNames(nginx);
  return (['stable', 'canary'] as const).map((role) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: names[role],
      namespace: nginx.metadata.namespace,
      labels: { ...ownedLabels(nginx), [LABEL_SERVICE_ROLE]: role },
      ownerReferences: [{ ...controllerReference(nginx), blockOwnerDeletion: false }],
    },
    spec: {
      type: 'ClusterIP',
      selector: { ...podSelector(nginx.metadata.name!), [LABEL_REVISION]: revisions[role] },
      ports: [
        {
          name: 'http',
          protocol: 'TCP',
          port: nginx.spec.service?.port ?? DEFAULT_SERVICE_PORT,
          targetPort: nginx.spec.port ?? DEFAULT_PORT,
        },
      ],
    },
  }));
}
