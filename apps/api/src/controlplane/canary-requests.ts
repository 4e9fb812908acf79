import {
  ANNOTATION_ABORT,
  ANNOTATION_PROMOTE,
  NGINX_GROUP,
  NGINX_PLURAL,
  podTemplateOf,
  revisionOf,
  type Nginx,
} from '@ngx/nginx-api';
import { StatusException } from '../http/kube-status.js';
import type { RollbackPlan } from './revision-writes.js';

/** The query of `POST …/promote`: `full=true` past every step; `step=<n>` the step meant (the current one). */
export interface PromoteOptions {
  full: boolean;
  step?: number;
}

/** Reads `?full=true|false` and `?step=<n>`; a 400 Status for anything else. */
export function promoteOptions(query: Record<string, unknown>): PromoteOptions {
  const { full, step } = query;
  if (full !== undefined && full !== 'true' && full !== 'false')
    throw new StatusException(400, `full must be true or false, not ${JSON.stringify(full)}`);
  if (step !== undefined && (typeof step !== 'string' || !/^[0-9]{1,4}$/.test(step)))
    throw new StatusException(400, `step must be a step index (0, 1, …), not ${JSON.stringify(step)}`);
  return { full: full === 'true', ...(step !== undefined ? { step: Number(step) } : {}) };
}

/** Another method than POST on `…/promote` or `…/abort`: 405, as the API server answers a verb a path does not serve. */
export function unservedMethod(method: string, request: 'promote' | 'abort'): StatusException {
  return new StatusException(405, `${method} is not supported on ${request}: a ${request} is a POST`, {
    group: NGINX_GROUP,
    kind: NGINX_PLURAL,
  });
}

function refuse(nginx: Nginx, why: string): StatusException {
  const name = nginx.metadata.name ?? '';
  return new StatusException(409, `nginxes.${NGINX_GROUP} "${name}": ${why}`, {
    name,
    group: NGINX_GROUP,
    kind: NGINX_PLURAL,
  });
}

/**
 * The canary in progress of `nginx` (as just read): strategy Canary, status.canary of the spec's revision, and
 * Progressing or Paused. A 409 Status when there is none.
 */
function canaryInProgress(nginx: Nginx) {
  const revision = revisionOf(podTemplateOf(nginx.spec));
  const canary = nginx.status?.canary;
  if (nginx.spec.strategy?.type !== 'Canary')
    throw refuse(nginx, 'strategy is not Canary: no canary in progress');
  if (!canary || canary.revision !== revision)
    throw refuse(nginx, `no canary of revision ${revision} in progress (yet)`);
  if (canary.phase !== 'Progressing' && canary.phase !== 'Paused')
    throw refuse(nginx, `the canary of revision ${revision} is ${canary.phase}: no canary in progress`);
  return { revision, canary };
}

/** The annotation patch of a request, with the Nginx's resourceVersion as its precondition. */
function annotate(nginx: Nginx, key: string, value: string): RollbackPlan {
  if (nginx.metadata.annotations?.[key] === value) return { nginx, patch: undefined };
  return {
    nginx,
    patch: { metadata: { resourceVersion: nginx.metadata.resourceVersion, annotations: { [key]: value } } },
  };
}

/**
 * What a promote writes: `mycompany.com/promote: <revision>/<step>` (past the current step) or `<revision>/full`
 * (past every step left). 409 when no canary is in progress, or `step` is not the current one.
 */
export function promotePlan(nginx: Nginx, options: PromoteOptions): RollbackPlan {
  const { revision, canary } = canaryInProgress(nginx);
  if (options.step !== undefined && options.step !== canary.step)
    throw refuse(nginx, `step ${options.step} is not the canary's current step (${canary.step})`);
  return annotate(
    nginx,
    ANNOTATION_PROMOTE,
    options.full ? `${revision}/full` : `${revision}/${canary.step}`,
  );
}

/** What an abort writes: `mycompany.com/abort: <revision>`. 409 when no canary is in progress. */
export function abortPlan(nginx: Nginx): RollbackPlan {
  const { revision } = canaryInProgress(nginx);
  return annotate(nginx, ANNOTATION_ABORT, revision);
}
