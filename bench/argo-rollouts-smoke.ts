import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { rssMb } from './convergence/process-stats.js';
import {
  applyArgoRolloutsCrds,
  argoRolloutsBuilt,
  buildArgoRollouts,
  startArgoRollouts,
} from './rollout/argo-rollouts.js';
import { kubectl, kubectlApply } from '../test/support/kubectl.js';
import { sleep, uniqueName, waitFor } from '../test/support/wait.js';

// Smoke check of the Argo Rollouts peer on the local cluster (npm run peer:argo-rollouts:smoke): one Rollout of
// 4 replicas, canary steps setWeight 50 then a 5 s pause, nginx:1.27 → nginx:1.28, seen through to Healthy on
// the new revision (kwok readies the pods). Builds the controller first when missing (`--no-build` refuses
// instead). Prints its figures; exits non-zero when the rollout does not complete.

interface RolloutStatus {
  phase?: string;
  currentPodHash?: string;
  stableRS?: string;
  currentStepIndex?: number;
  replicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: string;
}

const REPLICAS = 4;
const rollout = (
  name: string,
  image: string,
  steps: unknown[] = [{ setWeight: 50 }, { pause: { duration: '5s' } }],
) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name },
  spec: {
    replicas: REPLICAS,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'nginx', image }] },
    },
    strategy: { canary: { steps } },
  },
});

async function status(namespace: string, name: string) {
  const object = JSON.parse(await kubectl('get', '-n', namespace, 'rollout', name, '-o', 'json')) as {
    metadata: { generation: number };
    status?: RolloutStatus;
  };
  return { generation: object.metadata.generation, status: object.status ?? {} };
}

/** Healthy on the current template: every replica updated and available, the stable ReplicaSet the current one. */
const complete = ({ generation, status: s }: { generation: number; status: RolloutStatus }) =>
  s.observedGeneration === String(generation) &&
  s.phase === 'Healthy' &&
  s.stableRS !== undefined &&
  s.stableRS === s.currentPodHash &&
  s.updatedReplicas === REPLICAS &&
  s.availableReplicas === REPLICAS &&
  s.replicas === REPLICAS;

async function main() {
  if (!argoRolloutsBuilt()) {
    if (process.argv.includes('--no-build')) throw new Error('rollouts-controller is not built (--no-build)');
    const started = performance.now();
    console.log('building rollouts-controller (tools/argo-rollouts/build.sh)…');
    await buildArgoRollouts();
    console.log(`built in ${Math.round((performance.now() - started) / 1000)} s`);
  }
  console.log(`CRDs: ${(await applyArgoRolloutsCrds()).join(', ')}`);
  const startedAt = performance.now();
  const controller = await startArgoRollouts();
  const readyMs = performance.now() - startedAt;
  const namespace = uniqueName('argo-smoke');
  const name = 'web';
  try {
    await kubectl('create', 'namespace', namespace);
    await waitFor(`namespace ${namespace}'s default service account`, () =>
      kubectl('get', '-n', namespace, 'serviceaccount', 'default').then(() => true),
    );
    const idleRss = rssMb(controller.pid);
    await kubectlApply(JSON.stringify(rollout(name, 'nginx:1.27')), namespace);
    const first = await waitFor(
      'the first revision to be Healthy',
      async () => {
        const s = await status(namespace, name);
        return complete(s) && s.status;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );

    const updateAt = performance.now();
    await kubectlApply(JSON.stringify(rollout(name, 'nginx:1.28')), namespace);
    const phases: string[] = [];
    const done = await waitFor(
      'the canary to complete on nginx:1.28',
      async () => {
        const s = await status(namespace, name);
        const seen = `${s.status.phase ?? '-'}@step${s.status.currentStepIndex ?? '-'}`;
        // Only once the controller has seen the new template (before, it still reports the last revision).
        if (s.status.observedGeneration === String(s.generation) && phases.at(-1) !== seen) phases.push(seen);
        return s.status.currentPodHash !== first.currentPodHash && complete(s) && s.status;
      },
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    const updateMs = performance.now() - updateAt;

    const images = await kubectl(
      'get',
      '-n',
      namespace,
      'pods',
      '-l',
      `app=${name}`,
      '-o',
      'jsonpath={range .items[?(@.status.phase=="Running")]}{.spec.containers[0].image}{"\\n"}{end}',
    );
    const running = images.split('\n').filter(Boolean);
    if (running.length !== REPLICAS || running.some((image) => image !== 'nginx:1.28'))
      throw new Error(`expected ${REPLICAS} running nginx:1.28 pods, got: ${running.join(', ')}`);

    console.log(
      `rollouts-controller ${readFileSync(controller.logPath, 'utf8').match(/Argo Rollouts controller starting[^\n]*version=(\S+)/)?.[1] ?? ''}`.trim(),
    );
    console.log(`ready (caches synced, workers started): ${Math.round(readyMs)} ms`);
    console.log(`RSS idle (ready, no Rollout yet): ${idleRss.toFixed(1)} MiB`);
    console.log(`nginx:1.27 → 1.28, 4 replicas, setWeight 50 + pause 5s: ${Math.round(updateMs)} ms`);
    console.log(`phases seen: ${phases.join(' → ')}`);
    console.log(
      `stable ReplicaSet hash ${first.currentPodHash} → ${done.stableRS}; ${running.length} pods on nginx:1.28`,
    );
    await sleep(5000); // settle, then a second idle memory reading with one Rollout in the caches
    console.log(`RSS after the rollout: ${rssMb(controller.pid).toFixed(1)} MiB`);

    await failingAnalysis(namespace);
  } finally {
    await kubectl('delete', 'namespace', namespace, '--wait=false').catch(() => {});
    await controller.stop();
  }
}

/** Images of the running pods of `app` not being deleted. */
async function liveImages(namespace: string, app: string): Promise<string[]> {
  const out = await kubectl(
    'get',
    '-n',
    namespace,
    'pods',
    '-l',
    `app=${app}`,
    '-o',
    'jsonpath={range .items[?(@.status.phase=="Running")]}{.spec.containers[0].image} {.metadata.deletionTimestamp}{"\\n"}{end}',
  );
  return out
    .split('\n')
    .filter((line) => line.trim() && !line.trim().includes(' '))
    .map((line) => line.trim());
}

/**
 * A canary gated by an analysis that fails (Argo's `web` provider against a local HTTP server answering
 * `{"ok": false}`): times the update to the abort, and the abort to every live pod back on the stable image.
 */
async function failingAnalysis(namespace: string): Promise<void> {
  const server = createServer((_request, response) => response.end('{"ok": false}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const name = 'gated';
  try {
    await kubectlApply(
      JSON.stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'AnalysisTemplate',
        metadata: { name: 'always-fails' },
        spec: {
          metrics: [
            {
              name: 'ok',
              count: 1,
              failureLimit: 0,
              successCondition: 'result == true',
              provider: { web: { url: `http://127.0.0.1:${port}/`, jsonPath: '{$.ok}' } },
            },
          ],
        },
      }),
      namespace,
    );
    const steps = [{ setWeight: 50 }, { analysis: { templates: [{ templateName: 'always-fails' }] } }];
    await kubectlApply(JSON.stringify(rollout(name, 'nginx:1.27', steps)), namespace);
    await waitFor(`${name} Healthy on nginx:1.27`, async () => complete(await status(namespace, name)), {
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    const updateAt = performance.now();
    await kubectlApply(JSON.stringify(rollout(name, 'nginx:1.28', steps)), namespace);
    const aborted = await waitFor(
      `${name} to abort`,
      async () => {
        const s = (await status(namespace, name)).status as RolloutStatus & {
          abort?: boolean;
          message?: string;
        };
        return s.abort === true && s;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    const abortAt = performance.now();
    await waitFor(
      `every live ${name} pod running nginx:1.27`,
      async () => {
        const images = await liveImages(namespace, name);
        return images.length === REPLICAS && images.every((image) => image === 'nginx:1.27');
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    console.log(`failing analysis: ${aborted.phase}, ${aborted.message}`);
    console.log(
      `update → abort ${Math.round(abortAt - updateAt)} ms; abort → every live pod running nginx:1.27 ${Math.round(performance.now() - abortAt)} ms`,
    );
  } finally {
    server.close();
  }
}

main().then(
  () => console.log('argo-rollouts smoke: ok'),
  (error: unknown) => {
    console.error('argo-rollouts smoke: FAILED:', error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
