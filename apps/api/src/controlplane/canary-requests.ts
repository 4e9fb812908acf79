import { NGINX_GROUP, NGINX_PLURAL, type PromoteOptions } from '@ngx/nginx-api';
import { StatusException } from '../http/kube-status.js';

/**
 * The query of `POST …/promote` (what it writes: @ngx/nginx-api's promotePlan and abortPlan): `full=true` past
 * every step; `step=<n>` the step meant (the current one).
 */

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
