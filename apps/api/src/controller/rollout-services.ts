import type { V1Service } from '@kubernetes/client-node';
import { DEFAULT_PORT, DEFAULT_SERVICE_PORT, LABEL_REVISION, type Nginx } from '@ngx/nginx-api';
import { ownedLabels } from './owned-objects.js';
import { controllerReference, podSelector } from './pod-builder.js';

/** Marks the Services a progressive rollout owns, and which role each plays. */
export const LABEL_SERVICE_ROLE = 'mycompany.com/service-role';
/** A canary's traffic routing keeps `stable` and `canary`; a blue-green rollout `active` and `preview`. */
export type ServiceRole = 'stable' | 'canary' | 'active' | 'preview';

/** The revision each of a rollout's Services selects, by role. */
export type ServiceRevisions = Partial<Record<ServiceRole, string>>;

/** The names of the stable and canary Services: stableService and canaryService, else `<name>-stable|-canary`. */
export function canaryServiceNames(nginx: Nginx): Record<'stable' | 'canary', string> {
  const canary = nginx.spec.strategy?.canary;
  const name = nginx.metadata.name!;
  return {
    stable: canary?.stableService ?? `${name}-stable`,
    canary: canary?.canaryService ?? `${name}-canary`,
  };
}

/** The names of the active and preview Services: activeService and previewService, else `<name>-active|-preview`. */
export function blueGreenServiceNames(nginx: Nginx): Record<'active' | 'preview', string> {
  const blueGreen = nginx.spec.strategy?.blueGreen;
  const name = nginx.metadata.name!;
  return {
    active: blueGreen?.activeService ?? `${name}-active`,
    preview: blueGreen?.previewService ?? `${name}-preview`,
  };
}

/**
 * The Services the strategy keeps, by role: none for RollingUpdate, Recreate or a canary without trafficRouting.
 */
export function rolloutServiceNames(nginx: Nginx): Partial<Record<ServiceRole, string>> {
  const strategy = nginx.spec.strategy;
  if (strategy?.type === 'Canary' && strategy.canary?.trafficRouting) return canaryServiceNames(nginx);
  if (strategy?.type === 'BlueGreen') return blueGreenServiceNames(nginx);
  return {};
}

/**
 * The Services a progressive rollout keeps, each selecting the pods of the revision `revisions` gives its role
 * (a role without one is left out): a canary with trafficRouting its stable and canary Services, a blue-green
 * rollout its active and preview Services. Port `http` to spec.port, as the Nginx's own Service.
 */
export function rolloutServicesFor(
  nginx: Nginx,
  revisions: ServiceRevisions,
): (V1Service & { metadata: { name: string } })[] {
  return Object.entries(rolloutServiceNames(nginx)).flatMap(([role, name]) => {
    const revision = revisions[role as ServiceRole];
    if (!revision) return [];
    return [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {
          name,
          namespace: nginx.metadata.namespace,
          labels: { ...ownedLabels(nginx), [LABEL_SERVICE_ROLE]: role },
          ownerReferences: [{ ...controllerReference(nginx), blockOwnerDeletion: false }],
        },
        spec: {
          type: 'ClusterIP',
          selector: { ...podSelector(nginx.metadata.name!), [LABEL_REVISION]: revision },
          ports: [
            {
              name: 'http',
              protocol: 'TCP',
              port: nginx.spec.service?.port ?? DEFAULT_SERVICE_PORT,
              targetPort: nginx.spec.port ?? DEFAULT_PORT,
            },
          ],
        },
      },
    ];
  });
}
