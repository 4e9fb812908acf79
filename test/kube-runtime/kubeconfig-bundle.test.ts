import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { KubeApiError, KubeClient } from '../../libs/kube-runtime/src/index.js';
import { kubectl } from '../support/kubectl.js';
import { KUBECONFIG_PATH, ROOT } from '../support/paths.js';

/** What the app runs: the build's bundle of client-node's KubeConfig (libs/kube-runtime/bundle-kubeconfig.mjs). */
const BUNDLE = join(ROOT, 'libs/kube-runtime/dist/kubeconfig.js');
const { KubeConfig } = (await import(BUNDLE)) as { KubeConfig: new () => ClientNodeKubeConfig };

const NAMESPACE = 'kubeconfig-bundle';
const ACCOUNT = 'exec-user';

function loaded(file: string): ClientNodeKubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(file);
  return kubeConfig;
}

describe("the build's KubeConfig bundle", () => {
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ngx-kubeconfig-'));
    await kubectl('create', 'namespace', NAMESPACE).catch(() => undefined);
    await kubectl('create', 'serviceaccount', ACCOUNT, '-n', NAMESPACE).catch(() => undefined);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await kubectl('delete', 'namespace', NAMESPACE, '--wait=false', '--ignore-not-found');
  });

  it('is one file that neither imports client-node nor holds its generated API clients and models', () => {
    const text = readFileSync(BUNDLE, 'utf8');
    expect(text).not.toMatch(/(from|import\(|require\()\s*["']@kubernetes\/client-node/);
    expect(text).not.toMatch(/\bCoreV1Api\b|\bObjectSerializer\b|\bclass V1Pod\b/);
    expect(text).toMatch(/client-node\/dist\/config\.js/); // the loader itself is in
  });

  it("signs in with the admin kubeconfig's client certificate", async () => {
    const client = new KubeClient(loaded(KUBECONFIG_PATH));
    try {
      const version = await client.request<{ gitVersion: string }>({ path: '/version' });
      expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+/);
      await expect(client.request({ path: `/api/v1/namespaces/${NAMESPACE}` })).resolves.toMatchObject({
        metadata: { name: NAMESPACE },
      });
    } finally {
      client.close();
    }
  });

  it("runs a user's exec credential plugin and signs in with the token it prints", async () => {
    const token = (await kubectl('create', 'token', ACCOUNT, '-n', NAMESPACE, '--duration=1h')).trim();
    const plugin = join(dir, 'credential-plugin.mjs');
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token },
    };
    writeFileSync(plugin, `console.log(${JSON.stringify(JSON.stringify(credential))});\n`);
    const admin = parse(readFileSync(KUBECONFIG_PATH, 'utf8')) as { clusters: { cluster: object }[] };
    const file = join(dir, 'exec-kubeconfig');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'local', cluster: admin.clusters[0]!.cluster }],
        users: [
          {
            name: 'exec',
            user: {
              exec: {
                apiVersion: 'client.authentication.k8s.io/v1',
                command: process.execPath,
                args: [plugin],
                interactiveMode: 'Never',
              },
            },
          },
        ],
        contexts: [{ name: 'exec', context: { cluster: 'local', user: 'exec' } }],
        'current-context': 'exec',
      }),
      { mode: 0o600 },
    );

    const client = new KubeClient(loaded(file));
    try {
      // The service account may not list pods: the refusal names who the API server took the caller for.
      const refused = client.request({ path: `/api/v1/namespaces/${NAMESPACE}/pods` });
      await expect(refused).rejects.toBeInstanceOf(KubeApiError);
      await expect(refused).rejects.toMatchObject({
        code: 403,
        message: expect.stringContaining(`system:serviceaccount:${NAMESPACE}:${ACCOUNT}`),
      });
    } finally {
      client.close();
    }
  });
});
