// Runs alone: listens on the port kube-apiserver's audit webhook calls, and restarts kube-apiserver.
// Every door an Nginx can be changed through lands in the change audit with its actor and diff: the control
// plane's REST API, kubectl through it, kubectl straight to kube-apiserver, the HPA's service account on /scale,
// Argo CD's service account with server-side apply, and an impersonated delete straight to kube-apiserver. The
// last four are known only from kube-apiserver's own audit events, which the local cluster posts to the app's
// webhook (tools/cluster: --audit-webhook-config-file, client certificate CN kube-apiserver-audit).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import type { ChangeItem, RevisionItem, TimelineItem } from '../libs/nginx-api/src/index.js';
import {
  CA_FILE,
  TOKEN_NAMES,
  TOKENS,
  startControlPlane,
  type ControlPlane,
} from './support/control-plane.js';
import {
  POSTGRES_URL,
  migrate,
  postgresDatabase,
  sqliteDatabase,
  type TestDatabase,
} from './support/database.js';
import { startApp } from './support/app-process.js';
import { launchBrowser, newTab, screenshot, signInWith } from './support/browser.js';
import { kubectl, kubectlApply, kubectlWith, runKubectl } from './support/kubectl.js';
import { builtPluginFolder, controlPlaneKubeconfig, runNgx } from './support/kubectl-ngx.js';
import { restartKubeApiServer } from './support/operations.js';
import { CLUSTER_DIR } from './support/paths.js';
import { serviceAccountKubeconfig } from './support/service-account.js';
import { staysTrue, uniqueName, waitFor } from './support/wait.js';

const NS = uniqueName('doors');
const PKI = join(CLUSTER_DIR, 'pki');
const scratch = mkdtempSync(join(tmpdir(), 'ngx-doors-'));
const HPA = 'system:serviceaccount:kube-system:horizontal-pod-autoscaler';
const ARGO = `system:serviceaccount:${NS}:argocd-application-controller`;
let cp: ControlPlane;
let webhookUrl: URL;
let database: TestDatabase;

/** Where the local cluster's kube-apiserver posts its audit events (tools/cluster/lib.sh writes the file). */
function webhookServer(): URL {
  const config = parse(readFileSync(join(CLUSTER_DIR, 'audit-webhook.kubeconfig'), 'utf8')) as {
    clusters: { cluster: { server: string } }[];
  };
  return new URL(config.clusters[0]!.cluster.server);
}

beforeAll(async () => {
  webhookUrl = webhookServer();
  await kubectl('create', 'namespace', NS);
  await kubectl('create', 'serviceaccount', 'argocd-application-controller', '-n', NS);
  await kubectl(
    'create',
    'role',
    'argocd-nginxes',
    '-n',
    NS,
    '--verb=get,list,watch,create,update,patch,delete',
    '--resource=nginxes.mycompany.com',
  );
  await kubectl(
    'create',
    'rolebinding',
    'argocd-nginxes',
    '-n',
    NS,
    '--role=argocd-nginxes',
    `--serviceaccount=${NS}:argocd-application-controller`,
  );
  await kubectl(
    'create',
    'rolebinding',
    'platform-nginxes',
    '-n',
    NS,
    '--role=argocd-nginxes',
    '--group=platform',
  );
  database = await (POSTGRES_URL ? postgresDatabase() : sqliteDatabase());
  await migrate(database.url);
  cp = await startOnWebhookPort();
  await webhookCaughtUp();
}, 300_000);

/**
 * Waits until kube-apiserver's webhook delivers this test's events promptly. While no app listened on the
 * webhook's port (the test files before this one), kube-apiserver kept retrying and buffering their events; it
 * now sends that backlog first, and may have dropped events while its buffer was full. A marker Nginx is written
 * straight to kube-apiserver, again every few seconds, until one of its writes is in the change audit.
 */
async function webhookCaughtUp(): Promise<void> {
  const marker = join(scratch, 'marker.yaml');
  writeFileSync(
    marker,
    `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: marker\n  namespace: ${NS}\nspec:\n  replicas: 0\n`,
  );
  await kubectl('apply', '-f', marker);
  let writes = 0;
  await waitFor(
    "kube-apiserver's audit webhook to deliver this test's events",
    async () => {
      if ((await changes({ name: 'marker' })).length > 0) return true;
      await kubectl('-n', NS, 'annotate', 'nginx', 'marker', `write=${++writes}`, '--overwrite');
      return false;
    },
    { timeoutMs: 240_000, intervalMs: 3_000 },
  );
}

/**
 * The app on the port kube-apiserver posts its audit events to, with the test's audit database; its controller
 * leads in NS only, so revisions are made.
 */
function startOnWebhookPort(): Promise<ControlPlane> {
  return startControlPlane(
    {
      PORT: webhookUrl.port,
      WATCH_NAMESPACE: NS,
      CONTROLLER: 'true',
      LEADER_ELECTION: 'false',
      DATABASE_URL: database.url,
      AUDIT_APISERVER_LOSS_POLL_SECONDS: '1',
    },
    { web: true },
  );
}

// A failure shows what the app logged at warn or error level, which is where its side of a story is told.
afterEach((context) => {
  if (context.task.result?.state !== 'fail' || !cp) return;
  const lines = cp
    .output()
    .split('\n')
    .filter((line) => /"level":"(warn|error)"|error/i.test(line));
  console.log(`app warnings and errors:\n${lines.slice(-30).join('\n')}`);
});

afterAll(async () => {
  await cp?.stop();
  await database?.drop();
  await kubectl('delete', 'namespace', NS, '--wait=false').catch(() => {});
});

/** The changes in NS, newest first (every page). */
async function changes(filters: Record<string, string> = {}): Promise<ChangeItem[]> {
  const items: ChangeItem[] = [];
  let next: string | undefined;
  do {
    const query = new URLSearchParams({
      namespace: NS,
      limit: '500',
      ...filters,
      ...(next ? { continue: next } : {}),
    });
    const response = await cp.as('admin')(`/controlplane/v1/audit/changes?${query}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: ChangeItem[]; metadata: { continue?: string } };
    items.push(...page.items);
    next = page.metadata.continue;
  } while (next);
  return items;
}

/** Waits for the change of the Nginx `name` (web by default) that `match` picks, newest first. */
async function change(
  what: string,
  match: (item: ChangeItem) => boolean,
  filters: Record<string, string> = { name: 'web' },
): Promise<ChangeItem> {
  return waitFor(what, async () => (await changes(filters)).find(match), {
    timeoutMs: 30_000,
    intervalMs: 300,
  });
}

/** An Nginx's whole timeline in NS, newest first (every page), as a viewer reads it. */
async function timeline(name: string, query = ''): Promise<TimelineItem[]> {
  const items: TimelineItem[] = [];
  let next: string | undefined;
  do {
    const response = await cp.as('viewer')(
      `/controlplane/v1/namespaces/${NS}/nginxes/${name}/timeline?limit=50${query}${next ? `&continue=${next}` : ''}`,
    );
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: TimelineItem[]; metadata: { continue?: string } };
    items.push(...page.items);
    next = page.metadata.continue;
  } while (next);
  return items;
}

const viaControlPlane = (...args: string[]) =>
  runKubectl(
    [
      `--server=${cp.httpsUrl}`,
      `--certificate-authority=${CA_FILE}`,
      `--token=${TOKENS.editor}`,
      `--cache-dir=${join(scratch, 'cache')}`,
      '-n',
      NS,
      ...args,
    ],
    { env: { ...process.env, KUBECONFIG: join(scratch, 'none') } },
  );

/** Creates an Nginx of nginx:1.27 through the control plane's REST API, as the editor. */
const createAsEditor = (name: string, replicas: number) =>
  cp.as('editor')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name },
      spec: { replicas, image: 'nginx:1.27' },
    }),
  });

describe('the change audit names the actor of every door', () => {
  it('records six doors, each with its actor, verb, door and diff', async () => {
    // 1. The control plane's REST API.
    expect((await createAsEditor('web', 1)).status).toBe(201);
    const rest = await change('the REST create', (item) => item.verb === 'create');
    expect(rest).toMatchObject({
      actor: TOKEN_NAMES.editor,
      role: 'editor',
      door: 'controlplane',
      specBefore: null,
      specAfter: { replicas: 1, image: 'nginx:1.27' },
    });
    // Joined with kube-apiserver's event of the same request: one change, both identities.
    const joined = await change(
      'the REST create joined with its audit event',
      (item) => item.verb === 'create' && item.sources.includes('audit-webhook'),
    );
    expect(joined.id).toBe(rest.id);
    expect(joined.sources).toEqual(['controlplane', 'audit-webhook']);
    expect(joined.kubeUser).toBe('admin');
    expect(joined.auditId).toMatch(/^ngx-rest-/);

    // 2. kubectl through the control plane.
    await viaControlPlane('patch', 'nginx', 'web', '--type=merge', '-p', '{"spec":{"replicas":2}}');
    const throughUs = await change(
      'kubectl through the control plane',
      (item) => item.verb === 'patch' && item.door === 'controlplane' && item.sources.length === 2,
    );
    expect(throughUs).toMatchObject({
      actor: TOKEN_NAMES.editor,
      userAgent: expect.stringMatching(/^kubectl\//),
      specBefore: { replicas: 1 },
      specAfter: { replicas: 2 },
      kubeUser: 'admin',
    });

    // 3. kubectl straight to kube-apiserver (a new image: a new revision).
    await kubectl('-n', NS, 'patch', 'nginx', 'web', '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}');
    const direct = await change(
      'kubectl straight to kube-apiserver',
      (item) => item.door === 'kube-apiserver' && item.verb === 'patch' && item.subresource === null,
    );
    expect(direct).toMatchObject({
      actor: 'admin',
      role: null,
      sources: ['audit-webhook'],
      fieldManager: 'kubectl-patch',
      specBefore: { image: 'nginx:1.27', replicas: 2 },
      specAfter: { image: 'nginx:1.28', replicas: 2 },
      kubeGroups: expect.arrayContaining(['system:masters']) as unknown,
    });

    // 4. The HPA's service account on /scale.
    // As the HPA does: read the Scale, write it back with the new replicas.
    const hpa = await serviceAccountKubeconfig('kube-system', 'horizontal-pod-autoscaler');
    const scalePath = `/apis/mycompany.com/v1/namespaces/${NS}/nginxes/web/scale`;
    const scale = JSON.parse(await kubectlWith(hpa, 'get', '--raw', scalePath)) as {
      spec: { replicas: number };
    };
    const scaleFile = join(scratch, 'scale.json');
    writeFileSync(scaleFile, JSON.stringify({ ...scale, spec: { replicas: 3 } }));
    await kubectlWith(hpa, 'replace', '--raw', scalePath, '-f', scaleFile);
    const scaled = await change('the HPA scaling', (item) => item.actor === HPA);
    expect(scaled).toMatchObject({
      verb: 'update',
      door: 'kube-apiserver',
      subresource: 'scale',
      specBefore: { replicas: 2 },
      specAfter: { replicas: 3 },
    });

    // 5. Argo CD's service account with server-side apply.
    const argo = await serviceAccountKubeconfig(NS, 'argocd-application-controller');
    const manifest = join(scratch, 'web.yaml');
    writeFileSync(
      manifest,
      `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: web\n  namespace: ${NS}\nspec:\n  replicas: 4\n  image: nginx:1.28\n`,
    );
    await kubectlWith(
      argo,
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager=argocd-controller',
      '-f',
      manifest,
    );
    const applied = await change('the Argo CD apply', (item) => item.actor === ARGO);
    expect(applied).toMatchObject({
      verb: 'apply',
      door: 'kube-apiserver',
      fieldManager: 'argocd-controller',
      specBefore: { replicas: 3 },
      specAfter: { replicas: 4 },
    });

    // 6. A delete straight to kube-apiserver, impersonating another user.
    await kubectl('-n', NS, 'delete', 'nginx', 'web', '--as=jane', '--as-group=platform', '--wait=false');
    const deleted = await change('the impersonated delete', (item) => item.verb === 'delete');
    expect(deleted).toMatchObject({
      actor: 'jane',
      impersonator: 'admin',
      door: 'kube-apiserver',
      kubeGroups: expect.arrayContaining(['platform']) as unknown,
      specBefore: { replicas: 4, image: 'nginx:1.28' },
      specAfter: null,
    });

    // The actor filter finds each door's changes; the controller's own status writes are no changes.
    expect((await changes({ actor: HPA })).map((item) => item.id)).toEqual([scaled.id]);
    const all = await changes();
    expect(all.filter((item) => item.subresource === 'status')).toEqual([]);
    // Each write is one change, whichever records it has.
    expect(new Set(all.map((item) => item.auditId)).size).toBe(all.length);
  });

  it('names the actor who introduced a revision through kube-apiserver in the revision history', async () => {
    const manifest = join(scratch, 'rev.yaml');
    writeFileSync(
      manifest,
      `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: rev\n  namespace: ${NS}\nspec:\n  replicas: 1\n  image: nginx:1.27\n`,
    );
    await kubectl('apply', '-f', manifest);
    await kubectl('-n', NS, 'patch', 'nginx', 'rev', '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}');
    const revisions = await waitFor(
      'both revisions with the change that introduced them',
      async () => {
        const response = await cp.as('viewer')(`/controlplane/v1/namespaces/${NS}/nginxes/rev/revisions`);
        const items = ((await response.json()) as { items?: RevisionItem[] }).items ?? [];
        return items.length === 2 && items.every((item) => item.change) ? items : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    for (const item of revisions)
      expect(item.change).toMatchObject({ actor: 'admin', role: null, door: 'kube-apiserver' });
  });
});

describe('no change is lost while the audit webhook is down', () => {
  it("records what only the informer saw, and completes it with kube-apiserver's events once the webhook is back", async () => {
    const downAt = Date.now();
    await cp.stop();
    // Another replica, not on the webhook's port: it sees the changes through its informer only.
    const observer = await startApp({
      WEB_MODE: 'off',
      CONTROLLER: 'false',
      WATCH_NAMESPACE: NS,
      DATABASE_URL: database.url,
      AUTH_TOKENS: `ann-admin:admin:${TOKENS.admin}`,
      AUDIT_OBSERVED_HOLD_SECONDS: '2',
    });
    try {
      const manifest = join(scratch, 'outage.yaml');
      writeFileSync(
        manifest,
        `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: outage\n  namespace: ${NS}\nspec:\n  replicas: 1\n  image: nginx:1.27\n`,
      );
      await kubectl('apply', '-f', manifest);
      await kubectl('-n', NS, 'patch', 'nginx', 'outage', '--type=merge', '-p', '{"spec":{"replicas":3}}');
      await kubectl('-n', NS, 'delete', 'nginx', 'outage', '--wait=false');
      const list = async () => {
        const response = await fetch(
          `${observer.url}/controlplane/v1/audit/changes?namespace=${NS}&name=outage`,
          { headers: { Authorization: `Bearer ${TOKENS.admin}` } },
        );
        return ((await response.json()) as { items: ChangeItem[] }).items;
      };
      const seen = await waitFor('the informer-only records', async () => {
        const items = await list();
        return items.length === 3 ? items : undefined;
      });
      expect(seen.map((item) => [item.verb, item.actor, item.door, item.sources])).toEqual([
        ['delete', '', 'unknown', ['informer']],
        ['update', '', 'unknown', ['informer']],
        ['create', '', 'unknown', ['informer']],
      ]);
      expect(seen[1]).toMatchObject({
        fieldManager: 'kubectl-patch',
        specBefore: { replicas: 1 },
        specAfter: { replicas: 3 },
      });
    } finally {
      await observer.stop();
    }
    // Down for 30 s in all; kube-apiserver retries each batch for about 80 s.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 30_000 - (Date.now() - downAt))));
    cp = await startOnWebhookPort();
    const completed = await waitFor(
      'the late audit events to complete the records',
      async () => {
        const items = await changes({ name: 'outage' });
        return items.every((item) => item.sources.length === 2) && items.length === 3 ? items : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    expect(completed.map((item) => [item.verb, item.actor, item.door, item.sources])).toEqual([
      ['delete', 'admin', 'kube-apiserver', ['informer', 'audit-webhook']],
      ['patch', 'admin', 'kube-apiserver', ['informer', 'audit-webhook']],
      ['create', 'admin', 'kube-apiserver', ['informer', 'audit-webhook']],
    ]);
    expect(completed[1]).toMatchObject({ specBefore: { replicas: 1 }, specAfter: { replicas: 3 } });
    expect((await changes({ actor: 'admin', name: 'outage' })).map((item) => item.verb)).toEqual([
      'delete',
      'patch',
      'create',
    ]);
  }, 240_000);
});

describe('the causal timeline', () => {
  interface Why {
    actor: string | null;
    door: string | null;
    chain: TimelineItem[];
  }
  const why = async (name: string, pod: string): Promise<Why> => {
    const response = await cp.as('viewer')(
      `/controlplane/v1/namespaces/${NS}/nginxes/${name}/pods/${pod}/why`,
    );
    expect(response.status).toBe(200);
    return (await response.json()) as Why;
  };
  const podsOf = async (name: string) =>
    JSON.parse(await kubectl('-n', NS, 'get', 'pods', '-l', `mycompany.com/nginx=${name}`, '-o', 'json')) as {
      items: {
        metadata: { name: string; deletionTimestamp?: string };
        spec: { containers: { image: string }[] };
      }[];
    };

  it("links a hand-deleted pod's replacement, a rollout's every pod and a quota's refusal back to who caused them", async () => {
    expect((await createAsEditor('shop', 2)).status).toBe(201);
    const first = await waitFor('two pods', async () => {
      const pods = (await podsOf('shop')).items;
      return pods.length === 2 ? pods.map((pod) => pod.metadata.name) : undefined;
    });

    // A pod deleted by hand is replaced; the replacement's why names the person who deleted the first.
    await kubectl('-n', NS, 'delete', 'pod', first[0]!, '--wait=false');
    const replacement = await waitFor('a replacement pod', async () => {
      const pods = (await podsOf('shop')).items.map((pod) => pod.metadata.name);
      return pods.find((pod) => !first.includes(pod));
    });
    const replaced = await waitFor('the why of the replacement to reach its root', async () => {
      const answer = await why('shop', replacement);
      return answer.actor ? answer : undefined;
    });
    expect(replaced).toMatchObject({ actor: 'admin', door: 'kube-apiserver' });
    expect(
      replaced.chain.map((item) => [item.kind, item.evidence?.what ?? item.change?.verb ?? 'reconcile']),
    ).toEqual([
      ['pod', 'created'],
      ['reconcile', 'reconcile'],
      ['pod', expect.stringMatching(/^(terminating|deleted)$/)],
      ['pod-write', 'delete'],
    ]);
    expect(replaced.chain[2]!.evidence?.pod).toBe(first[0]);
    expect((await why('shop', first[0]!)).actor).toBe('admin');
    // The first pods were made for the REST create: their why names the editor.
    expect(await why('shop', first[1]!)).toMatchObject({ actor: TOKEN_NAMES.editor, door: 'controlplane' });

    // A rollout straight through kube-apiserver: every new pod, and every old pod's going, leads to it.
    const before = (await podsOf('shop')).items.map((pod) => pod.metadata.name);
    await kubectl(
      '-n',
      NS,
      'patch',
      'nginx',
      'shop',
      '--type=merge',
      '-p',
      '{"spec":{"image":"nginx:1.28"}}',
    );
    const rolled = await waitFor(
      'the rollout to finish',
      async () => {
        const pods = (await podsOf('shop')).items;
        const done =
          pods.length === 2 &&
          pods.every(
            (pod) => !pod.metadata.deletionTimestamp && pod.spec.containers[0]!.image === 'nginx:1.28',
          );
        return done ? pods.map((pod) => pod.metadata.name) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const imageChange = await change(
      'the image change',
      (item) =>
        item.door === 'kube-apiserver' &&
        (item.specAfter as { image?: string } | null)?.image === 'nginx:1.28',
      { name: 'shop' },
    );
    for (const pod of [...rolled, ...before]) {
      const answer = await waitFor(`the why of ${pod}`, async () => {
        const found = await why('shop', pod);
        return found.actor ? found : undefined;
      });
      const root = answer.chain[answer.chain.length - 1]!;
      if (before.includes(pod)) expect(answer.chain[0]!.evidence?.what).toMatch(/^(terminating|deleted)$/);
      expect(root.id).toBe(`change/${imageChange.id}`);
      expect(answer.actor).toBe('admin');
    }

    // Scaling past a quota (room for one more pod in the namespace): the refusals are entries linked to the change
    // that asked for them.
    const inNamespace = JSON.parse(await kubectl('-n', NS, 'get', 'pods', '-o', 'json')) as {
      items: unknown[];
    };
    await kubectl('-n', NS, 'create', 'quota', 'pods', `--hard=pods=${inNamespace.items.length + 1}`);
    // The namespace's pods are free again for the tests after this one, even when this one fails.
    onTestFinished(async () => {
      await kubectl('-n', NS, 'delete', 'quota', 'pods', '--ignore-not-found');
      await kubectl('-n', NS, 'scale', 'nginx', 'shop', '--replicas=0');
    });
    const scaled = await cp.as('editor')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes/shop/scale`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { replicas: 5 } }),
    });
    expect(scaled.status).toBe(200);
    const scaleChange = await change('the scale change', (item) => item.subresource === 'scale', {
      name: 'shop',
    });
    const refusal = await waitFor('a FailedCreate entry', async () =>
      (await timeline('shop', '&kind=event')).find(
        (item) => item.evidence?.what === 'FailedCreate' && item.causes.length > 0,
      ),
    );
    expect(refusal.evidence).toMatchObject({ type: 'Warning', message: expect.stringMatching(/quota/) });
    const all = await timeline('shop');
    const byId = new Map(all.map((item) => [item.id, item]));
    const reporter = byId.get(refusal.causes[0]!);
    expect(reporter?.kind).toBe('reconcile');
    expect(reporter?.causes).toContain(`change/${scaleChange.id}`);
    // Our own Event is placed at the millisecond it happened: after the change that caused it, never before it
    // for its whole-second timestamp.
    expect(Date.parse(refusal.at)).toBeGreaterThanOrEqual(
      Date.parse(byId.get(`change/${scaleChange.id}`)!.at),
    );

    // One order, every kind, no entry twice; the kind filter keeps only what it names.
    expect(new Set(all.map((item) => item.id)).size).toBe(all.length);
    const times = all.map((item) => Date.parse(item.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(new Set(all.map((item) => item.kind).filter((kind) => kind !== 'gap'))).toEqual(
      new Set(['change', 'reconcile', 'event', 'pod', 'condition', 'pod-write']),
    );
    expect(new Set((await timeline('shop', '&kind=pod,change')).map((item) => item.kind))).toEqual(
      new Set(['pod', 'change']),
    );
    // A pod deleted by hand while the quota is full: the incident as a person reads it, in the UI's Timeline and
    // through `kubectl ngx timeline`, from the same rows (libs/nginx-api's timelineRows).
    const standing = (await podsOf('shop')).items.filter((pod) => !pod.metadata.deletionTimestamp);
    const handDeleted = standing[0]!.metadata.name;
    await kubectl('-n', NS, 'delete', 'pod', handDeleted, '--wait=false');
    await waitFor(
      'the hand deletion and the deletion that finished it',
      async () => {
        const writes = (await timeline('shop', '&kind=pod-write')).filter(
          (item) => item.evidence?.pod === handDeleted && item.evidence.what === 'delete',
        );
        return writes.some((item) => item.evidence?.actor === 'admin') && writes.length >= 2;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const expected = [
      `${TOKEN_NAMES.editor} scaled 2 → 5 via controlplane`,
      'pod creations refused',
      `admin: delete pod ${handDeleted}`,
      '(deletion finished by kwok-controller)',
    ];
    const plugin = await runNgx(builtPluginFolder(), controlPlaneKubeconfig(cp, 'viewer'), [
      '-n',
      NS,
      'timeline',
      'shop',
      '--since',
      '1h',
    ]);
    expect(plugin.code).toBe(0);
    for (const words of expected) expect(plugin.out).toContain(words);
    expect(plugin.out).toMatch(/\d+ reconciles that changed nothing/);
    expect(plugin.out).not.toMatch(/caused by (reconcile|change)\//);

    const browser = await launchBrowser();
    try {
      const page = await newTab(browser, []);
      await signInWith(page, cp.url, TOKENS.viewer, TOKEN_NAMES.viewer);
      await page.goto(`${cp.url}/nginxes/${NS}/shop`);
      const rows = page.getByTestId('timeline-row');
      await rows.first().waitFor({ timeout: 30_000 });
      const shown = async () =>
        (await rows.allInnerTexts()).join('\n') +
        (await page.getByTestId('timeline-causes').allInnerTexts()).join('\n');
      await waitFor('the incident in the UI timeline', async () => {
        const text = await shown();
        return expected.every((words) => text.includes(words));
      });
      for (const words of expected) expect(await shown()).toContain(words);
      await screenshot(page, 'timeline-quota-and-hand-deletion');
    } finally {
      await browser.close();
    }
  }, 180_000);

  it('streams new entries with watch=true from a list’s resourceVersion, oldest first, with bookmarks to resume', async () => {
    const name = 'watched';
    await kubectlApply(
      JSON.stringify({
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        metadata: { name },
        spec: { replicas: 1 },
      }),
      NS,
    );
    const listed = await cp.as('viewer')(
      `/controlplane/v1/namespaces/${NS}/nginxes/${name}/timeline?limit=1`,
    );
    const { resourceVersion } = ((await listed.json()) as { metadata: { resourceVersion: string } }).metadata;
    expect(resourceVersion).toMatch(/^\d+\.\d+\.\d+$/);

    const abort = new AbortController();
    const response = await cp.as('viewer')(
      `/controlplane/v1/namespaces/${NS}/nginxes/${name}/timeline?watch=true&resourceVersion=${resourceVersion}`,
      { signal: abort.signal },
    );
    expect(response.status).toBe(200);
    const events: { type: string; object: TimelineItem & { metadata?: { resourceVersion: string } } }[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) if (line) events.push(JSON.parse(line) as (typeof events)[number]);
      }
    })().catch(() => {});
    try {
      await kubectl('-n', NS, 'scale', 'nginx', name, '--replicas=2');
      const added = (kind: string, test: (item: TimelineItem) => boolean = () => true) =>
        events.some((event) => event.type === 'ADDED' && event.object.kind === kind && test(event.object));
      await waitFor(
        'the scale, its reconcile and the new pod over the watch',
        () =>
          added(
            'change',
            (item) => item.change?.door === 'kube-apiserver' && item.change.subresource === 'scale',
          ) &&
          added('reconcile') &&
          added('pod', (item) => item.evidence?.what === 'created'),
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      const bookmark = events.find((event) => event.type === 'BOOKMARK');
      expect(bookmark?.object.metadata?.resourceVersion).toMatch(/^\d+\.\d+\.\d+$/);
      // Events of the watch are oldest first, and none comes twice.
      const entries = events.filter((event) => event.type === 'ADDED').map((event) => event.object);
      expect(new Set(entries.map((item) => item.id)).size).toBe(entries.length);
    } finally {
      abort.abort();
      await reading;
    }
  }, 120_000);

  it('keeps a deleted and recreated Nginx of the same name as two histories by uid, both under its name', async () => {
    const name = 'again';
    const manifest = JSON.stringify({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name },
      spec: { replicas: 1 },
    });
    const uidOf = async () =>
      (await kubectl('-n', NS, 'get', 'nginx', name, '-o', 'jsonpath={.metadata.uid}')).trim();
    await kubectlApply(manifest, NS);
    const first = await uidOf();
    await kubectl('-n', NS, 'delete', 'nginx', name, '--wait=true');
    await kubectlApply(manifest, NS);
    const second = await uidOf();
    expect(second).not.toBe(first);

    const history = (uid: string) =>
      timeline(name, `&uid=${uid}&kind=change,pod`).then((items) =>
        items.filter((item) => item.kind !== 'gap'),
      );
    await waitFor(
      'both objects’ changes and pods in the timeline of the name',
      async () => {
        const all = await timeline(name, '&kind=change,pod');
        const verbs = (uid: string) =>
          all.filter((item) => item.nginxUid === uid && item.change).map((item) => item.change!.verb);
        return (
          verbs(first).includes('create') &&
          verbs(first).includes('delete') &&
          verbs(second).includes('create') &&
          all.some((item) => item.nginxUid === second && item.kind === 'pod')
        );
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // Asked by uid, each history is its object's alone.
    const firstHistory = await history(first);
    const secondHistory = await history(second);
    expect(firstHistory.every((item) => item.nginxUid === first)).toBe(true);
    expect(secondHistory.every((item) => item.nginxUid === second)).toBe(true);
    expect(secondHistory.some((item) => item.change?.verb === 'delete')).toBe(false);

    // The second object's pod goes back to the second object's creation, not the first's.
    const pod = secondHistory.find((item) => item.kind === 'pod')!.evidence!.pod!;
    const chain = await waitFor('the why of the recreated Nginx’s pod', async () => {
      const answer = await why(name, pod);
      return answer.chain.some((item) => item.kind === 'change') ? answer : undefined;
    });
    const root = chain.chain.find((item) => item.kind === 'change')!;
    expect(root.nginxUid).toBe(second);
    expect(root.change!.verb).toBe('create');
  }, 120_000);

  it('answers bad timeline parameters with a 400 naming them, and an unknown pod with a 404', async () => {
    for (const [query, field] of [
      ['watch=maybe', 'watch'],
      ['watch=true&resourceVersion=7', 'resourceVersion'],
      ['kind=gossip', 'kind'],
      ['limit=0', 'limit'],
      ['since=yesterday', 'since'],
      ['uid=%00', 'uid'],
      ['continue=abc', 'continue'],
    ] as const) {
      const response = await cp.as('viewer')(
        `/controlplane/v1/namespaces/${NS}/nginxes/shop/timeline?${query}`,
      );
      expect(response.status).toBe(400);
      expect(
        ((await response.json()) as { details: { causes: { field: string }[] } }).details.causes[0]!.field,
      ).toBe(field);
    }
    const response = await cp.as('viewer')(`/controlplane/v1/namespaces/${NS}/nginxes/shop/pods/nobody/why`);
    expect(response.status).toBe(404);
    expect((await cp.as(undefined)(`/controlplane/v1/namespaces/${NS}/nginxes/shop/timeline`)).status).toBe(
      401,
    );
  });
});

/** A batch of audit events as kube-apiserver posts it. */
function eventList(items: unknown[]) {
  return JSON.stringify({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items });
}

/** One audit event of an Nginx patch by `user`, named `name`. */
function patchEvent(auditID: string, name: string, user = 'mallory', extra: Record<string, unknown> = {}) {
  const at = new Date().toISOString();
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID,
    stage: 'ResponseComplete',
    requestURI: `/apis/mycompany.com/v1/namespaces/${NS}/nginxes/${encodeURIComponent(name)}`,
    verb: 'patch',
    user: { username: user, groups: ['system:authenticated'] },
    userAgent: 'handmade/1.0',
    objectRef: { resource: 'nginxes', namespace: NS, name, apiGroup: 'mycompany.com', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: at,
    stageTimestamp: at,
    ...extra,
  };
}

/** Posts to the webhook over TLS with the given client certificate (none when undefined). */
function post(body: string, client?: { cert: Buffer; key: Buffer }, headers: Record<string, string> = {}) {
  const dispatcher = new Agent({ connect: { ca: readFileSync(CA_FILE), ...client } });
  return undiciFetch(`${cp.httpsUrl}/controlplane/v1/audit/webhook`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
    dispatcher,
  });
}

const webhookClient = () => ({
  cert: readFileSync(join(PKI, 'audit-webhook.crt')),
  key: readFileSync(join(PKI, 'audit-webhook.key')),
});

describe('the audit webhook refuses bad input', () => {
  it('answers 401 without a certificate or with one of another CA, 403 for another client; stores nothing', async () => {
    const body = eventList([patchEvent('forged-1', 'forged')]);
    expect((await post(body)).status).toBe(401);
    expect((await cp.as('admin')('/controlplane/v1/audit/webhook', { method: 'POST', body })).status).toBe(
      401,
    );

    const other = join(scratch, 'other');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=kube-apiserver-audit',
        '-keyout',
        `${other}.key`,
        '-out',
        `${other}.crt`,
      ],
      { stdio: 'ignore' },
    );
    const foreign = { cert: readFileSync(`${other}.crt`), key: readFileSync(`${other}.key`) };
    expect((await post(body, foreign)).status).toBe(401);

    const admin = { cert: readFileSync(join(PKI, 'admin.crt')), key: readFileSync(join(PKI, 'admin.key')) };
    const refused = await post(body, admin);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { reason: string }).reason).toBe('Forbidden');

    expect((await changes()).filter((item) => item.name === 'forged')).toEqual([]);
  });

  it('answers 400 for what is no EventList, and for bad items while storing the good ones; 413 when too large', async () => {
    const client = webhookClient();
    for (const body of ['{', '[]', JSON.stringify({ kind: 'EventList', apiVersion: 'v1', items: [] })])
      expect((await post(body, client)).status).toBe(400);

    const mixed = await post(
      eventList([patchEvent('mixed-good', 'mixed'), { auditID: 'bad' }, 'not an event']),
      client,
    );
    expect(mixed.status).toBe(400);
    expect(((await mixed.json()) as { message: string }).message).toContain('2 of 3 items');
    await change('the good event of a mixed batch', (item) => item.auditId === 'mixed-good', {});
    // The two lost events are a gap in every timeline: whose they were is not known.
    const gap = await waitFor('the unreadable events as a gap', async () =>
      (await timeline('mixed', '&kind=gap')).find(
        (item) => item.evidence?.what === 'audit-events-unreadable' && item.evidence.count === 2,
      ),
    );
    expect(gap.evidence).toMatchObject({ type: 'Warning', reason: "kube-apiserver's audit webhook" });

    const huge = await post('x'.repeat(33 * 1024 * 1024), client);
    expect(huge.status).toBe(413);
  });

  it('stores a replayed batch once, and unstorable text safely', async () => {
    const client = webhookClient();
    const batch = eventList([
      patchEvent('replayed', 'replay'),
      patchEvent('odd-text', 'odd', 'nul\u0000user', { userAgent: 'lone \ud800 surrogate \u0001' }),
    ]);
    for (let attempt = 0; attempt < 3; attempt++) expect((await post(batch, client)).status).toBe(200);
    const odd = await change('the event with unstorable text', (item) => item.auditId === 'odd-text', {});
    expect(odd.actor).toBe('nul\ufffduser');
    expect(odd.userAgent).toBe('lone \ufffd surrogate \u0001');
    const replayed = async () => (await changes()).filter((item) => item.auditId === 'replayed').length;
    await waitFor('the replayed event stored', async () => (await replayed()) > 0);
    await staysTrue('the replayed event stored once', async () => (await replayed()) === 1, 1000);
  });

  it('bounds a flood: concurrent batches are stored or answered 429, and the app stays up', async () => {
    const client = webhookClient();
    const events = Array.from({ length: 300 }, (_, index) =>
      patchEvent(`flood-${index}`, `flood-${index % 7}`),
    );
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => post(eventList(events), client).then((response) => response.status)),
    );
    expect(answers.every((status) => status === 200 || status === 429)).toBe(true);
    expect((await cp.as(undefined)('/healthz')).status).toBe(200);
    const stored = await changes({ actor: 'mallory' });
    expect(new Set(stored.map((item) => item.auditId)).size).toBe(stored.length);
  });
});

describe('what kube-apiserver gives up delivering', () => {
  it("is a gap in the timeline, read from kube-apiserver's own apiserver_audit_error_total", async () => {
    // kube-apiserver posting to a port where nothing listens, retrying for well under a second.
    await restartKubeApiServer({
      CLUSTER_AUDIT_WEBHOOK: 'https://127.0.0.1:9/controlplane/v1/audit/webhook',
      CLUSTER_AUDIT_WEBHOOK_BACKOFF: '50ms',
    });
    try {
      let writes = 0;
      const gap = await waitFor(
        'the lost events as a gap',
        async () => {
          await kubectl('-n', NS, 'annotate', 'nginx', 'marker', `lost=${++writes}`, '--overwrite');
          return (await timeline('marker', '&kind=gap')).find(
            (item) => item.evidence?.what === 'audit-events-lost',
          );
        },
        { timeoutMs: 60_000, intervalMs: 1_000 },
      );
      expect(gap.evidence!.count).toBeGreaterThan(0);
      expect(gap.evidence!.message).toMatch(/audit events lost: kube-apiserver gave up delivering them/);
    } finally {
      await restartKubeApiServer();
      await webhookCaughtUp();
    }
  }, 240_000);
});
