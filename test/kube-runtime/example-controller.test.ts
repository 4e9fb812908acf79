import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL } from '../../libs/kube-runtime/examples/label-configmaps.js';
import { KUBECONFIG_PATH, ROOT } from '../support/paths.js';
import { runtimeClient } from '../support/runtime.js';
import { uniqueName, waitFor } from '../support/wait.js';

const EXAMPLE = join(ROOT, 'libs/kube-runtime/examples/label-configmaps.ts');
const client = runtimeClient();
const namespace = uniqueName('label-configmaps');
const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;
const output: string[] = [];
let example: ChildProcess | undefined;

async function createConfigMap(name: string): Promise<void> {
  await client.request({
    method: 'POST',
    path: configMaps,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'value' } },
  });
}

async function labelled(name: string): Promise<boolean> {
  const configMap = await client.request<V1ConfigMap>({ path: `${configMaps}/${name}` });
  return configMap.metadata?.labels?.[LABEL.key] === LABEL.value;
}

/** Waits for every named ConfigMap to carry the label; a timeout shows what the example printed. */
async function waitForLabels(what: string, names: string[]): Promise<void> {
  await waitFor(what, async () => (await Promise.all(names.map(labelled))).every(Boolean), {
    timeoutMs: 60_000,
    intervalMs: 250,
  }).catch((error: Error) => {
    throw new Error(`${error.message}\nthe example printed:\n${output.join('')}`);
  });
}

beforeAll(async () => {
  await client.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
  });
  for (const name of ['first', 'second', 'third']) await createConfigMap(name);
});

afterAll(async () => {
  if (example && example.exitCode === null && example.signalCode === null) example.kill('SIGKILL');
  await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
  client.close();
});

describe('the example controller (libs/kube-runtime/examples/label-configmaps.ts)', () => {
  it('labels every ConfigMap of its namespace, also later ones, restores a removed label, and stops on SIGTERM', async () => {
    example = spawn(process.execPath, ['--import', 'tsx', EXAMPLE, namespace], {
      cwd: ROOT,
      env: { ...process.env, KUBECONFIG: KUBECONFIG_PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    example.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    example.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      example!.once('exit', (code, signal) => resolve({ code, signal })),
    );

    await waitForLabels('the ConfigMaps that existed before the start to be labelled', [
      'first',
      'second',
      'third',
    ]);

    await createConfigMap('created-later');
    await waitForLabels('a ConfigMap created after the start to be labelled', ['created-later']);

    // Level-triggered: whatever takes the label off, the next look at the object puts it back.
    await client.request({
      method: 'PATCH',
      path: `${configMaps}/first`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { [LABEL.key]: null } } },
    });
    await waitForLabels('the removed label to be restored', ['first']);
    expect(output.join('')).toContain('caches synced, starting workers');

    example.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 180_000);
});
