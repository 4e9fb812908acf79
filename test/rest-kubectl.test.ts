// kubectl pointed at the control plane instead of the API server: it discovers the Nginx resource, and get,
// apply, scale, patch, delete and get -w all work, each write landing in the change audit under the token's name.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CA_FILE,
  TOKEN_NAMES,
  TOKENS,
  startControlPlane,
  type ControlPlane,
  type TestRole,
} from './support/control-plane.js';
import { KUBECTL, kubectl as adminKubectl, runKubectl } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const NS = uniqueName('kubectl');
const scratch = mkdtempSync(join(tmpdir(), 'ngx-kubectl-'));
const SEED = join(scratch, 'seed.yaml');
let cp: ControlPlane;

beforeAll(async () => {
  writeFileSync(
    SEED,
    'apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: my-deployment\nspec:\n  replicas: 2\n',
  );
  await adminKubectl('create', 'namespace', NS);
  cp = await startControlPlane();
});
afterAll(async () => {
  await cp?.stop();
  await adminKubectl('delete', 'namespace', NS, '--wait=false').catch(() => {});
});

/** kubectl against the control plane (TLS on its port: kubectl sends tokens only over TLS), nothing else. */
function kubectlArgs(role: TestRole, args: string[]): string[] {
  return [
    `--server=${cp.httpsUrl}`,
    `--certificate-authority=${CA_FILE}`,
    `--token=${TOKENS[role]}`,
    `--cache-dir=${join(scratch, 'cache')}`,
    '-n',
    NS,
    ...args,
  ];
}
const env = { ...process.env, KUBECONFIG: join(scratch, 'no-kubeconfig') };

const kubectl = (role: TestRole, ...args: string[]) => runKubectl(kubectlArgs(role, args), { env });

describe('kubectl against the control plane', () => {
  it('applies the seed manifest, gets, scales, patches, watches and deletes', async () => {
    expect(await kubectl('editor', 'apply', '-f', SEED)).toContain(
      'nginx.mycompany.com/my-deployment created',
    );
    expect(await kubectl('editor', 'apply', '-f', SEED)).toContain('my-deployment unchanged');

    const all = await kubectl('viewer', 'get', 'ngx', '-A');
    expect(all).toMatch(/NAMESPACE\s+NAME\s+DESIRED\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+IMAGE\s+AGE/);
    expect(all).toMatch(new RegExp(`${NS}\\s+my-deployment\\s+2\\s`));
    const yaml = await kubectl('viewer', 'get', 'ngx', 'my-deployment', '-o', 'yaml');
    expect(yaml).toContain('kind: Nginx');
    expect(yaml).toContain('replicas: 2');

    const watch = spawn(KUBECTL, kubectlArgs('viewer', ['get', 'ngx', '-w', '--output-watch-events']), {
      env,
    });
    let watched = '';
    watch.stdout.on('data', (chunk: Buffer) => (watched += chunk.toString()));
    try {
      await waitFor('the watch to list the object', () => watched.includes('my-deployment'));
      expect(await kubectl('editor', 'scale', 'ngx/my-deployment', '--replicas=3')).toContain('scaled');
      await waitFor('the watch to show the new scale', () => /MODIFIED\s+my-deployment\s+3\s/.test(watched));
      expect(
        await kubectl(
          'editor',
          'patch',
          'ngx',
          'my-deployment',
          '--type',
          'merge',
          '-p',
          '{"spec":{"image":"nginx:1.27"}}',
        ),
      ).toContain('patched');
      await waitFor('the watch to show the new image', () => watched.includes('nginx:1.27'));
    } finally {
      watch.kill();
    }

    await expect(kubectl('viewer', 'delete', 'ngx', 'my-deployment')).rejects.toThrow(/Forbidden|forbidden/);
    expect(await kubectl('editor', 'delete', 'ngx', 'my-deployment')).toContain('deleted');
    await waitFor(
      'my-deployment gone',
      async () => !(await kubectl('viewer', 'get', 'ngx', '-o', 'name')).includes('my-deployment'),
    );
  }, 120_000);

  it('left a change record for every write, under the token names', async () => {
    const changes = await waitFor('the change records', async () => {
      const response = await cp.as('viewer')(`/controlplane/v1/audit/changes?namespace=${NS}`);
      const list = (await response.json()) as {
        items: { actor: string; verb: string; code: number; userAgent: string; subresource: string | null }[];
      };
      return list.items.some((c) => c.verb === 'delete' && c.code === 200) && list.items;
    });
    const summary = changes
      .map((c) => `${c.actor} ${c.verb}${c.subresource ? `/${c.subresource}` : ''} ${c.code}`)
      .reverse();
    expect(summary).toEqual(
      expect.arrayContaining([
        `${TOKEN_NAMES.editor} create 201`,
        `${TOKEN_NAMES.editor} patch/scale 200`,
        `${TOKEN_NAMES.editor} patch 200`,
        `${TOKEN_NAMES.viewer} delete 403`,
        `${TOKEN_NAMES.editor} delete 200`,
      ]),
    );
    for (const change of changes) expect(change.userAgent).toMatch(/^kubectl\//);
  });

  it('answers kubectl auth can-i and whoami from the tokens and roles of the control plane', async () => {
    /** kubectl's answer's first word: "yes", or "no" (which exits with 1 and may add the reason). */
    const canI = async (role: TestRole, ...args: string[]) => {
      try {
        return (await kubectl(role, 'auth', 'can-i', ...args)).trim().split(/\s/)[0];
      } catch (error) {
        const { code, stdout } = error as { code?: number; stdout?: string };
        if (code === 1) return (stdout ?? '').trim().split(/\s/)[0];
        throw error;
      }
    };
    expect(await canI('viewer', 'get', 'ngx')).toBe('yes');
    expect(await canI('viewer', 'watch', 'nginxes.mycompany.com', '-A')).toBe('yes');
    expect(await canI('viewer', 'delete', 'ngx')).toBe('no');
    expect(await canI('editor', 'patch', 'ngx', '--subresource=scale')).toBe('yes');
    expect(await canI('editor', 'update', 'ngx', '--subresource=status')).toBe('no');
    expect(await canI('admin', 'update', 'ngx', '--subresource=status')).toBe('yes');
    expect(await canI('admin', 'get', 'pods')).toBe('no'); // not served here, whatever the app itself may do
    const whoami = await kubectl('editor', 'auth', 'whoami', '-o', 'json');
    expect(JSON.parse(whoami)).toMatchObject({
      kind: 'SelfSubjectReview',
      status: {
        userInfo: {
          username: TOKEN_NAMES.editor,
          groups: expect.arrayContaining(['nginx-control-plane:editor']),
        },
      },
    });
  });
});
