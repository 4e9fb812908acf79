import type { NginxCanaryStatus } from '../../libs/nginx-api/src/index.js';
import type { KubeClient } from '../../libs/kube-runtime/src/index.js';
import { kubectl } from '../../test/support/kubectl.js';
import { sleep } from '../../test/support/wait.js';
import { boundsOf } from './bounds.js';
import { NGINX_CANARY } from './canary.js';
import { DEPLOYMENT_ROLLOUT, type RolloutKind } from './kinds.js';
import { watchRollout, type RolloutWatch } from './observer.js';

// Back to the stable revision mid-rollout, two ways: our canary aborted by a failing analysis run (a real
// Prometheus query failing its successCondition, spec.rollbackOnFailure), and Deployments undone by hand
// (`kubectl rollout undo`) half-way through their RollingUpdate. Both timed to the pod watch showing every pod of
// every object back on the old image and ready.

export interface RollbackOptions {
  count: number;
  replicas: number;
  from: string;
  to: string;
  timeoutMs: number;
}

export interface Rollback {
  controller: string;
  how: string;
  /** Wall-clock ms of the first and the last trigger: the analysis runs' failures, or the undo (sent, answered). */
  firstTriggerAt?: number;
  lastTriggerAt?: number;
  /** When the pod watch first saw every pod of every object back on the old image and ready. */
  backAt?: number;
  fromFirstSeconds?: number;
  fromLastSeconds?: number;
  /** Pods on the new image, ready, when the first trigger happened (how far the rollout had gone). */
  updatedAtTrigger?: number;
  error?: string;
}

/**
 * When the run that aborted a canary failed: the time of its last measurement (the failing one), in ms; undefined
 * when no run aborted it.
 */
export function analysisFailedAt(canary: NginxCanaryStatus | undefined): number | undefined {
  if (canary?.phase !== 'Aborted' || !canary.abortedBy) return undefined;
  const run = canary.analysisRuns?.find((r) => r.name === canary.abortedBy);
  const times = (run?.measurements ?? []).map((m) => Date.parse(m.at)).filter((t) => !Number.isNaN(t));
  return times.length ? Math.max(...times) : undefined;
}

async function until(what: string, done: () => boolean, timeoutMs: number, every = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(every);
  }
}

/** Creates `count` objects of `kind` on `from` and waits until they have settled; their names. */
async function createSettled(
  client: KubeClient,
  kind: RolloutKind,
  namespace: string,
  watch: RolloutWatch,
  options: RollbackOptions,
  manifest: (name: string) => unknown,
): Promise<string[]> {
  const names = Array.from({ length: options.count }, (_, i) => `back-${i}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < names.length) {
        const name = names[next++]!;
        await client.request({ method: 'POST', path: kind.collection(namespace), body: manifest(name) });
      }
    }),
  );
  await until(
    `${options.count} ${kind.plural} settled on ${options.from}`,
    () => watch.settledOn(options.count, options.from),
    options.timeoutMs,
    100,
  );
  return names;
}

const patchAll = (client: KubeClient, kind: RolloutKind, namespace: string, names: string[], image: string) =>
  Promise.all(
    names.map((name) =>
      client.request({
        method: 'PATCH',
        path: `${kind.collection(namespace)}/${name}`,
        contentType: 'application/merge-patch+json',
        body: kind.imagePatch(image),
      }),
    ),
  );

const UNDO_LABEL = 'bench-undo';

const finish = (result: Rollback, backAt: number): Rollback => ({
  ...result,
  backAt,
  fromFirstSeconds: (backAt - result.firstTriggerAt!) / 1000,
  fromLastSeconds: (backAt - result.lastTriggerAt!) / 1000,
});

/**
 * Our canary (setWeight 50, then an analysis step) aborted by its analysis: `analysis` is the template (a
 * Prometheus query its successCondition fails). Our controller must be running on `namespace`.
 */
export async function abortedCanary(
  client: KubeClient,
  namespace: string,
  options: RollbackOptions,
  analysis: unknown,
): Promise<Rollback> {
  const strategy = { maxSurge: '25%', maxUnavailable: 0 };
  const watch = await watchRollout(client, NGINX_CANARY, namespace, {
    replicas: options.replicas,
    bounds: boundsOf(strategy, options.replicas),
    image: options.to,
  });
  const result: Rollback = {
    controller: NGINX_CANARY.controller,
    how: 'canary (setWeight 50, then a failing analysis), spec.rollbackOnFailure',
  };
  try {
    const names = await createSettled(client, NGINX_CANARY, namespace, watch, options, (name) => ({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name },
      spec: {
        replicas: options.replicas,
        image: options.from,
        rollbackOnFailure: true,
        analysis: [analysis],
        strategy: {
          type: 'Canary',
          canary: { ...strategy, steps: [{ setWeight: 50 }, { analysis: { templateName: 'errors' } }] },
        },
      },
    }));
    watch.arm();
    await patchAll(client, NGINX_CANARY, namespace, names, options.to);
    const failures = () =>
      watch
        .owners()
        .map((owner) =>
          analysisFailedAt((owner.status as { canary?: NginxCanaryStatus } | undefined)?.canary),
        );
    let updatedAtTrigger: number | undefined;
    await until(
      'every canary aborted by its analysis and every pod back on the stable revision',
      () => {
        const at = failures();
        if (updatedAtTrigger === undefined && at.some((t) => t !== undefined))
          updatedAtTrigger = watch.updatedAvailable();
        return at.every((t) => t !== undefined) && watch.podsOn(options.count, options.from);
      },
      options.timeoutMs,
    );
    const backAt = Date.now();
    const at = failures() as number[];
    return finish(
      { ...result, firstTriggerAt: Math.min(...at), lastTriggerAt: Math.max(...at), updatedAtTrigger },
      backAt,
    );
  } catch (error) {
    return { ...result, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await watch.stop();
  }
}

/**
 * Deployments (RollingUpdate 25% / 25%) patched to `to`, then, once half of all pods run it and are ready,
 * undone by one `kubectl rollout undo` of all of them. kube-controller-manager must be running.
 */
export async function undoneDeployments(
  client: KubeClient,
  namespace: string,
  options: RollbackOptions,
): Promise<Rollback> {
  const strategy = { maxSurge: '25%', maxUnavailable: '25%' };
  const watch = await watchRollout(client, DEPLOYMENT_ROLLOUT, namespace, {
    replicas: options.replicas,
    bounds: boundsOf(strategy, options.replicas),
    image: options.to,
  });
  const result: Rollback = {
    controller: DEPLOYMENT_ROLLOUT.controller,
    how: 'RollingUpdate 25% / 25%, `kubectl rollout undo` once half of the pods were updated and ready',
  };
  try {
    // The label `kubectl rollout undo -l` selects the Deployments by (their pods' labels are not theirs).
    const names = await createSettled(client, DEPLOYMENT_ROLLOUT, namespace, watch, options, (name) => {
      const manifest = DEPLOYMENT_ROLLOUT.rolloutManifest(name, options.replicas, options.from, strategy) as {
        metadata: Record<string, unknown>;
      };
      return { ...manifest, metadata: { ...manifest.metadata, labels: { [UNDO_LABEL]: 'true' } } };
    });
    watch.arm();
    await patchAll(client, DEPLOYMENT_ROLLOUT, namespace, names, options.to);
    const half = (options.count * options.replicas) / 2;
    await until(
      `half of the pods on ${options.to}`,
      () => watch.updatedAvailable() >= half,
      options.timeoutMs,
    );
    const updatedAtTrigger = watch.updatedAvailable();
    const firstTriggerAt = Date.now();
    await kubectl('rollout', 'undo', '-n', namespace, 'deployments', '-l', `${UNDO_LABEL}=true`);
    const lastTriggerAt = Date.now();
    await until(
      `every pod back on ${options.from}`,
      () => watch.podsOn(options.count, options.from),
      options.timeoutMs,
    );
    return finish({ ...result, firstTriggerAt, lastTriggerAt, updatedAtTrigger }, Date.now());
  } catch (error) {
    return { ...result, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await watch.stop();
  }
}
