import type { NginxBlueGreenStatus, NginxCanaryStatus, ReconcileAction } from '@ngx/nginx-api';

/**
 * The audit's account of how a sync moved the canary, from the status.canary it started from to the one it
 * plans: `started` (a canary of a new revision), `aborted` (naming the run that caused it in `object`, if one
 * did), `promoted`, `paused`, or `step N` — or undefined when neither the step nor the phase changed.
 */
export function canaryMove(
  previous: NginxCanaryStatus | undefined,
  next: NginxCanaryStatus | undefined,
): ReconcileAction | undefined {
  if (!next) return undefined;
  const action = (reason: string): ReconcileAction => ({
    kind: 'canary',
    reason,
    step: next.step,
    revision: next.revision,
    ...(reason === 'aborted' && next.abortedBy ? { object: next.abortedBy } : {}),
  });
  if (previous?.revision !== next.revision) return action(next.phase === 'Aborted' ? 'aborted' : 'started');
  if (previous.phase !== next.phase) {
    if (next.phase === 'Aborted') return action('aborted');
    if (next.phase === 'Promoted') return action('promoted');
    if (next.phase === 'Paused') return action('paused');
  }
  if (previous.step !== next.step) return action(`step ${next.step}`);
  return undefined;
}

/**
 * The audit's account of how a sync moved a blue-green rollout: `preview started`, `promoted` (the active Service
 * switched to the new revision), `aborted` (switched back, naming the run that caused it, if one did), `paused`,
 * or `completed` (the old revision's pods gone) — or undefined when neither the phase nor the active revision
 * changed.
 */
export function blueGreenMove(
  previous: NginxBlueGreenStatus | undefined,
  next: NginxBlueGreenStatus | undefined,
): ReconcileAction | undefined {
  if (!next) return undefined;
  const action = (reason: string): ReconcileAction => ({
    kind: 'blue-green',
    reason,
    revision: next.revision,
    ...(reason === 'aborted' && next.abortedBy ? { object: next.abortedBy } : {}),
  });
  if (previous?.revision !== next.revision)
    return action(next.phase === 'Aborted' ? 'aborted' : 'preview started');
  if (previous.phase !== next.phase && next.phase === 'Aborted') return action('aborted');
  if (previous.activeRevision !== next.activeRevision && next.activeRevision === next.revision)
    return action('promoted');
  if (previous.phase !== next.phase) {
    if (next.phase === 'Promoted') return action('completed');
    if (next.phase === 'Paused') return action('paused');
  }
  return undefined;
}
