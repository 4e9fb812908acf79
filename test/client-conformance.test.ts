// Issue 30: the official clients no one here wrote — client-go (dynamic client and shared informer, the scale
// client, server-side apply with two managers, DeleteCollection, typed errors) and the Python `kubernetes`
// package (CustomObjectsApi without content types, watch streams, DynamicClient) — run the same checks against
// kube-apiserver and against our API in the same run; every check's outcome must be the same on both. Issue 34's
// canary (paused, promoted, aborted) needs a controller for each namespace: the control plane's own for ours, a
// headless one for kube-apiserver's.
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
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { kubectl } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'ngx-conformance-'));
let cp: ControlPlane;
let kubeController: AppProcess;
let servers: Server[];

beforeAll(async () => {
  const namespaces = [uniqueName('conf-kube'), uniqueName('conf-ours')];
  // The controllers' namespaces, apart: the other checks' objects get no status written while they look.
  const canaries = [uniqueName('conf-kube-canary'), uniqueName('conf-ours-canary')];
  await Promise.all([...namespaces, ...canaries].map((ns) => kubectl('create', 'namespace', ns)));
  const controller = (ns: string) => ({ CONTROLLER: 'true', WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  const [started, headless] = await Promise.all([
    startControlPlane(controller(canaries[1]!)),
    startApp({ ...HEADLESS, ...controller(canaries[0]!) }),
    prepareClients(),
  ]);
  [cp, kubeController] = [started, headless];
  servers = [
    { ...kubeApiServer(namespaces[0]!), canaryNamespace: canaries[0]! },
    { ...ourApi(cp, namespaces[1]!, scratch), canaryNamespace: canaries[1]! },
  ];
}, 600_000);

afterAll(async () => {
  await cp?.stop();
  await kubeController?.stop();
  for (const ns of (servers ?? []).flatMap((server) => [server.namespace, server.canaryNamespace!]))
    await kubectl('delete', 'namespace', ns, '--wait=false').catch(() => {});
});

/** Both clients' canary: a pause after 50%, promoted past the last step, the next change aborted at the pause. */
const CANARY = [
  'Paused at step 1, weight 50, of the update revision: true',
  'promote: Promoted at step 2',
  'Paused at step 1, weight 50, of the update revision: true',
  'abort: Aborted at step 1',
].join('; ');

/** The canary each client creates (test/conformance). */
const CANARIES = { 'client-go': 'web-canary', python: 'py-canary' };

/** The verbs our change audit holds for `name` in our canary namespace: the client's requests went as POSTs. */
function requestsAudited(name: string) {
  const ns = servers[1]!.canaryNamespace!;
  return waitFor(`${name}'s promote and abort in the change audit`, async () => {
    const verbs = await Promise.all(
      ['promote', 'abort'].map(async (verb) => {
        const answer = await cp.as('viewer')(
          `/controlplane/v1/audit/changes?namespace=${ns}&name=${name}&verb=${verb}`,
        );
        const list = (await answer.json()) as { items?: { verb: string; code: number }[] };
        return (list.items ?? []).map((item) => `${item.verb} ${item.code}`);
      }),
    );
    return verbs.flat().length >= 2 && verbs.flat().sort();
  });
}

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
    expect(theirs.get('canary: paused, promoted, aborted')).toBe(CANARY);
    expect(await requestsAudited(CANARIES['client-go'])).toEqual(['abort 200', 'promote 200']);
  }, 480_000);
});

describe('the Python kubernetes client against kube-apiserver and our API', () => {
  it('gives every check the same outcome on both', async () => {
    const { theirs, rows } = await sideBySide('python');
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const row of rows) expect(row.ours, row.check).toBe(row.kubeApiServer);
    expect(theirs.get('watch.Watch().stream')).toBe('ADDED,MODIFIED,DELETED');
    // A new Nginx's Scale has no spec.replicas (0 is omitted), which the Python client reads as None.
    expect(theirs.get('CustomObjectsApi: scale')).toBe('get None; replace 2; patch 1');
    expect(theirs.get('canary: paused, promoted, aborted')).toBe(CANARY);
    expect(await requestsAudited(CANARIES.python)).toEqual(['abort 200', 'promote 200']);
  }, 480_000);
});
