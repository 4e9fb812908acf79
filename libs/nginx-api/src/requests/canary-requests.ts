import { ANNOTATION_ABORT, ANNOTATION_PROMOTE, NGINX_GROUP, NGINX_PLURAL } from '../names.js';
import { podTemplateOf } from '../pod-template.js';
import { revisionOf } from '../template-revision.js';
import type { Nginx } from '../types.js';
import { RequestRefused } from './request-refused.js';
import type { WritePlan } from './write-plan.js';

/** What a promote asks: past every step left (`full`), or past the current step (`step`, when given, is it). */
export interface PromoteOptions {
  full: boolean;
  step?: number;
}

function refuse(nginx: Nginx, why: string): RequestRefused {
  const name = nginx.metadata.name ?? '';
  return new RequestRefused(409, `${NGINX_PLURAL}.${NGINX_GROUP} "${name}": ${why}`, {
    name,
    group: NGINX_GROUP,
    kind: NGINX_PLURAL,
  });
}

/**
 * The canary in progress of `nginx` (as just read): strategy Canary, status.canary of the spec's revision, and
 * Progressing or Paused. Refused (409) when there is none.
 */
function canaryInProgress(nginx: Nginx) {
  const revision = revisionOf(podTemplateOf(nginx.spec));
  const canary = nginx.status?.canary;
  if (nginx.spec.strategy?.type !== 'Canary')
    throw refuse(nginx, 'strategy is neither Canary nor BlueGreen: no canary in progress');
  if (!canary || canary.revision !== revision)
    throw refuse(nginx, `no canary of revision ${revision} in progress (yet)`);
  if (canary.phase !== 'Progressing' && canary.phase !== 'Paused')
    throw refuse(nginx, `the canary of revision ${revision} is ${canary.phase}: no canary in progress`);
  return { revision, canary };
}

/** The annotation patch of a request, with the Nginx's resourceVersion as its precondition. */
function annotate(nginx: Nginx, key: string, value: string): WritePlan {
  if (nginx.metadata.annotations?.[key] === value) return { nginx, patch: undefined };
  return {
    nginx,
    patch: { metadata: { resourceVersion: nginx.metadata.resourceVersion, annotations: { [key]: value } } },
  };
}

/**
 * The blue-green rollout in progress of `nginx` (as just read): strategy BlueGreen, status.blueGreen of the spec's
 * revision, neither Promoted nor Aborted. Refused (409) when there is none.
 */
function blueGreenInProgress(nginx: Nginx) {
  const revision = revisionOf(podTemplateOf(nginx.spec));
  const blueGreen = nginx.status?.blueGreen;
  if (!blueGreen || blueGreen.revision !== revision)
    throw refuse(nginx, `no blue-green rollout of revision ${revision} in progress (yet)`);
  if (blueGreen.phase === 'Promoted' || blueGreen.phase === 'Aborted')
    throw refuse(
      nginx,
      `the blue-green rollout of revision ${revision} is ${blueGreen.phase}: none in progress`,
    );
  return { revision, blueGreen };
}

/**
 * What a promote writes: `mycompany.com/promote: <revision>/<step>` (past the current step) or `<revision>/full`
 * (past every step left); a blue-green rollout's preview is promoted whole (`<revision>/full`, `step` not taken).
 * Refused (409) when no canary or blue-green rollout is in progress, or `step` is not the current one.
 */
export function promotePlan(nginx: Nginx, options: PromoteOptions): WritePlan {
  if (nginx.spec.strategy?.type === 'BlueGreen') {
    const { revision, blueGreen } = blueGreenInProgress(nginx);
    if (blueGreen.activeRevision === revision) throw refuse(nginx, `revision ${revision} is already active`);
    if (options.step !== undefined) throw refuse(nginx, 'a blue-green rollout has no steps');
    return annotate(nginx, ANNOTATION_PROMOTE, `${revision}/full`);
  }
  const { revision, canary } = canaryInProgress(nginx);
  if (options.step !== undefined && options.step !== canary.step)
    throw refuse(nginx, `step ${options.step} is not the canary's current step (${canary.step})`);
  return annotate(
    nginx,
    ANNOTATION_PROMOTE,
    options.full ? `${revision}/full` : `${revision}/${canary.step}`,
  );
}

/**
 * What an abort writes: `mycompany.com/abort: <revision>`. Refused (409) when no canary or blue-green rollout is
 * in progress. A blue-green rollout aborted after its switch switches back.
 */
export function abortPlan(nginx: Nginx): WritePlan {
  const { revision } =
    nginx.spec.strategy?.type === 'BlueGreen' ? blueGreenInProgress(nginx) : canaryInProgress(nginx);
  return annotate(nginx, ANNOTATION_ABORT, revision);
}
