import type { V1Pod } from '@kubernetes/client-node';
import { isNotFound, type KubeRequester, METADATA_ONLY, objectPath } from '@ngx/kube-runtime';
import { SECRET_NOT_FOUND, type NginxPodTemplate } from '@ngx/nginx-api';
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

/** The ReplicaFailure reported while `secretName` is missing: what is missing and what happens meanwhile. */
export function secretNotFound(namespace: string, secretName: string): ReplicaFailure {
  return {
    reason: SECRET_NOT_FOUND,
    message: `Secret ${secretName} (spec.tls.secretName) not found in namespace ${namespace}: no pod is created until it exists.`,
  };
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
