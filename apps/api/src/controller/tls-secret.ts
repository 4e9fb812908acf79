import type { V1Pod } from '@kubernetes/client-node';
import { isNotFound, type KubeRequester, METADATA_ONLY, objectPath } from '@ngx/kube-runtime';
import {
  CONDITION_REPLICA_FAILURE,
  SECRET_NOT_FOUND,
  type Nginx,
  type NginxPodTemplate,
} from '@ngx/nginx-api';
import type { ReplicaFailure } from './nginx-status.js';

const SECRETS = { group: '', version: 'v1', plural: 'secrets' };

/**
 * The Secrets the pods a sync is about to create mount: spec.tls's for pods of `template`, or every Secret volume
 * of `model` when the new pods copy it (paused mid-rollout).
 */
export function secretsMounted(template: NginxPodTemplate, model?: V1Pod): string[] {
  if (model)
    return (model.spec?.volumes ?? [])
      .map((volume) => volume.secret?.secretName)
      .filter((name): name is string => Boolean(name));
  return template.tls ? [template.tls.secretName] : [];
}

/**
 * The ReplicaFailure reported while `secretName` is missing: what is missing and what happens meanwhile. Pods
 * already `running` keep the certificate they mounted (the kubelet keeps a deleted Secret's volume as it was).
 */
export function secretNotFound(namespace: string, secretName: string, running = 0): ReplicaFailure {
  const missing = `Secret ${secretName} (spec.tls.secretName) not found in namespace ${namespace}`;
  const meanwhile =
    running === 0
      ? 'no pod is created until it exists.'
      : `the ${running} running pod${running === 1 ? '' : 's'} keep${running === 1 ? 's' : ''} the certificate ${running === 1 ? 'it' : 'they'} mounted; no new pod is created until it exists.`;
  return { reason: SECRET_NOT_FOUND, message: `${missing}: ${meanwhile}` };
}

/** Whether the status already reports spec.tls's Secret missing (ReplicaFailure/SecretNotFound). */
export function reportsSecretNotFound(status: Nginx['status']): boolean {
  return (
    status?.conditions?.some(
      (c) => c.type === CONDITION_REPLICA_FAILURE && c.status === 'True' && c.reason === SECRET_NOT_FOUND,
    ) ?? false
  );
}

/**
 * Whether a sync at `now` looks for spec.tls's Secret although it creates no pod (nothing watches Secrets, so a
 * Secret deleted under running pods is noticed only this way): not when it was looked for during this sync
 * (`checkedAt` >= `syncStart`, by the pod creations); always while the status reports it missing (so the condition
 * clears on the first sync after it is back); else once `periodMs` has passed since the last look.
 */
export function secretCheckDue(
  checkedAt: number | undefined,
  syncStart: number,
  periodMs: number,
  reportedMissing: boolean,
): boolean {
  if (checkedAt === undefined) return true;
  if (checkedAt >= syncStart) return false;
  return reportedMissing || syncStart - checkedAt >= periodMs;
}

/**
 * The first of `names` that does not exist in `namespace`, by a GET of each one's metadata (`get` on secrets
 * only: the controller neither lists nor watches Secrets, and never receives their data). Any answer other than
 * found or 404 (403, a timeout) is thrown: the sync fails and retries with backoff.
 */
export async function firstMissingSecret(
  client: KubeRequester,
  namespace: string,
  names: readonly string[],
  signal?: AbortSignal,
): Promise<string | undefined> {
  for (const name of names) {
    try {
      await client.request({
        path: objectPath({ ...SECRETS, namespace }, name),
        accept: METADATA_ONLY,
        signal,
      });
    } catch (error) {
      if (isNotFound(error)) return name;
      throw error;
    }
  }
  return undefined;
}
