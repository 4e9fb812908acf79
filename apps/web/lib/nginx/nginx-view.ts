import {
  CONDITION_AVAILABLE,
  CONDITION_PROGRESSING,
  CONDITION_REPLICA_FAILURE,
  DEFAULT_IMAGE,
  type Nginx,
  type NginxCondition,
} from '@ngx/nginx-api';

export const nginxKey = (nginx: Nginx) => `${nginx.metadata.namespace}/${nginx.metadata.name}`;

export const detailHref = (namespace: string, name: string) =>
  `/nginxes/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;

export const condition = (nginx: Nginx, type: string): NginxCondition | undefined =>
  nginx.status?.conditions?.find((c) => c.type === type);

export const imageOf = (nginx: Nginx) => nginx.spec?.image || DEFAULT_IMAGE;

export const desiredOf = (nginx: Nginx) => nginx.spec?.replicas ?? 0;
export const readyOf = (nginx: Nginx) => nginx.status?.readyReplicas ?? 0;

export type Health = 'failure' | 'progressing' | 'available' | 'unavailable' | 'unknown';

/** One word for the state of an Nginx, from its conditions (ReplicaFailure wins, then Progressing). */
export function healthOf(nginx: Nginx): Health {
  if (condition(nginx, CONDITION_REPLICA_FAILURE)?.status === 'True') return 'failure';
  if (condition(nginx, CONDITION_PROGRESSING)?.status === 'True') return 'progressing';
  const available = condition(nginx, CONDITION_AVAILABLE)?.status;
  if (available === 'True') return 'available';
  if (available === 'False') return 'unavailable';
  return 'unknown';
}

const HEALTH_ORDER: Record<Health, number> = {
  failure: 0,
  unavailable: 1,
  progressing: 2,
  unknown: 3,
  available: 4,
};
export const healthRank = (nginx: Nginx) => HEALTH_ORDER[healthOf(nginx)];

/** The object as a manifest to show: without managedFields. */
export function manifestOf(nginx: Nginx): Nginx {
  const metadata = { ...nginx.metadata };
  delete metadata.managedFields;
  return { ...nginx, metadata };
}

/** metadata.creationTimestamp as it arrives over JSON (client-node types it as a Date; it is a string here). */
export const createdAt = (nginx: Nginx): string | undefined =>
  (nginx.metadata.creationTimestamp as unknown as string | undefined) ?? undefined;
