// Issue 30: the official clients no one here wrote — client-go (dynamic client and shared informer, the scale
// client, server-side apply with two managers, DeleteCollection, typed errors) and the Python `kubernetes`
// package (CustomObjectsApi without content types, watch streams, DynamicClient) — run the same checks against
// kube-apiserver and against our API in the same run; every check's outcome must be the same on both.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  comparable,
  kubeApiServer,
  ourApi,
  prepareClients,
  runClientChecks,
  type Server,
} from './support/conformance.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { kubectl } from './support/kubectl.js';
import { uniqueName } from './support/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'ngx-conformance-'));
let cp: ControlPlane;
let servers: Server[];

beforeAll(async () => {
  const namespaces = [uniqueName('conf-kube'), uniqueName('conf-ours')];
  const [started] = await Promise.all([
    startControlPlane(),
    prepareClients(),
    ...namespaces.map((ns) => kubectl('create', 'namespace', ns)),
  ]);
  cp = started;
  servers = [kubeApiServer(namespaces[0]!), ourApi(cp, namespaces[1]!, scratch)];
}, 600_000);

afterAll(async () => {
  await cp?.stop();
  for (const server of servers ?? [])
    await kubectl('delete', 'namespace', server.namespace, '--wait=false').catch(() => {});
});

/** The outcomes both servers gave, printed as the table the closing note of issue 30 asks for. */
async function sideBySide(client: 'client-go' | 'python') {
  const [theirs, ours] = await Promise.all(
    servers.map(async (server) => comparable(await runClientChecks(client, server), server)),
  );
  const rows = [...theirs!.keys()].map((check) => ({
    check,
    kubeApiServer: theirs!.get(check)!,
    ours: ours!.get(check) ?? '(not run)',
  }));
  console.log(
    [
      `${client} checks`,
      ...rows.map(
        (r) => `| ${r.check} | ${r.kubeApiServer} | ${r.ours === r.kubeApiServer ? 'same' : r.ours} |`,
      ),
    ].join('\n'),
  );
  return { theirs: theirs!, ours: ours!, rows };
}

describe('client-go against kube-apiserver and our API', () => {
  it('gives every check the same outcome on both', async () => {
    const { theirs, rows } = await sideBySide('client-go');
    expect(rows.length).toBeGreaterThanOrEqual(16);
    for (const row of rows) expect(row.ours, row.check).toBe(row.kubeApiServer);
    expect(theirs.get('scale client: get, update, patch')).toBe('get 0; update 2; patch 1');
    expect(theirs.get('server-side apply: two managers')).toContain('b applies: 409 Conflict IsConflict');
    expect(theirs.get('dynamic shared informer')).toBe('add,update,delete');
    expect(theirs.get('protocol client-go negotiates')).toBe('HTTP/2.0 200');
  }, 300_000);
});

describe('the Python kubernetes client against kube-apiserver and our API', () => {
  it('gives every check the same outcome on both', async () => {
    const { theirs, rows } = await sideBySide('python');
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const row of rows) expect(row.ours, row.check).toBe(row.kubeApiServer);
    expect(theirs.get('watch.Watch().stream')).toBe('ADDED,MODIFIED,DELETED');
    // A new Nginx's Scale has no spec.replicas (0 is omitted), which the Python client reads as None.
    expect(theirs.get('CustomObjectsApi: scale')).toBe('get None; replace 2; patch 1');
  }, 300_000);
});
