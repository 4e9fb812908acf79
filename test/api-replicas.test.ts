// The product installed as a platform team runs it (issue 43), on one machine: three API processes (ROLE=api)
// behind Debian's nginx as a round-robin load balancer with no stickiness, two controller processes (ROLE=controller,
// leader election), one PostgreSQL audit database, the project's real OpenID provider and Chromium. A person signs in
// through the provider, opens an Nginx and watches it live while each API process is restarted in turn, kubectl and
// the browser keep writing through the balancer, and the controller leader is killed with `kill -9` during a
// rollout. Then the faults, each with its answer: an API process killed mid-request, the database unreachable for
// session reads, two replicas renewing one session at once, a cookie replayed on another replica after sign-out.
import { connect as tlsConnect } from 'node:tls';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startApp, type AppProcess } from './support/app-process.js';
import { launchBrowser, screenshot, type TestBrowser } from './support/browser.js';
import { AUTH_TOKENS, CA_FILE, TOKENS, TOKEN_NAMES, tlsFetch } from './support/control-plane.js';
import { migrate, POSTGRES_URL, postgresDatabase, type TestDatabase } from './support/database.js';
import { kubectl, runKubectl } from './support/kubectl.js';
import { freePort, startLoadBalancer, type LoadBalancer } from './support/load-balancer.js';
import { CookieJar, hop, signInThroughProvider, walkSignIn } from './support/oidc-login.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  ISSUER,
  startProvider,
  type TestProvider,
} from './support/oidc-provider.js';
import { nginxesIn, podRecorder } from './support/operations.js';
import { CLUSTER_DIR } from './support/paths.js';
import { runtimeClient } from './support/runtime.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { sleep, staysTrue, uniqueName, waitFor } from './support/wait.js';
import { holdExclusiveForFile } from './support/exclusive.js';

// Its OpenID provider takes the one port kube-apiserver trusts ID tokens from (5556), which test/oidc-sign-in.test.ts
// and test/api-replicas.test.ts take in turn.
holdExclusiveForFile('oidc-issuer-port');

const NS = uniqueName('replicas');
const AUTH = '/controlplane/v1/auth';
const SESSION_COOKIE = '__Host-ngx-session';
/** ID tokens expire every 8 s: sessions are renewed with the refresh token again and again during the test. */
const ID_TOKEN_SECONDS = 8;
const client = runtimeClient();
const nginxes = nginxesIn(client, NS);

let database: TestDatabase;
let databaseProxy: TcpProxy;
let provider: TestProvider;
let balancer: LoadBalancer;
let browser: TestBrowser;
let scratch: string;
const apiPorts: number[] = [];
const apis: AppProcess[] = [];
const controllers: AppProcess[] = [];
/** API processes stopped and replaced, kept for what they printed. */
const stoppedApis: AppProcess[] = [];

/** What any API process, running or stopped, logged about audit records it could not store. */
const auditWriterErrors = () =>
  [...stoppedApis, ...apis].flatMap((api) =>
    api
      .output()
      .split('\n')
      .filter((line) => /audit (records? |queue |database )/.test(line)),
  );
let apiEnv: Record<string, string>;

/** Starts API process `index` on its port (the balancer's upstream), the same port each time. */
async function startApi(index: number): Promise<AppProcess> {
  if (apis[index]) stoppedApis.push(apis[index]);
  const api = await startApp({ ...apiEnv, PORT: String(apiPorts[index]) });
  apis[index] = api;
  return api;
}

async function startController(): Promise<AppProcess> {
  const controller = await startApp({
    ROLE: 'controller',
    WEB_MODE: 'off',
    DATABASE_URL: database.url,
    WATCH_NAMESPACE: NS,
    LEASE_NAMESPACE: NS,
    INSTALL_CRD: 'false',
    // Short terms, so a standby takes over within seconds of the leader's death.
    LEASE_DURATION_SECONDS: '5',
    LEASE_RENEW_DEADLINE_SECONDS: '3',
    LEASE_RETRY_PERIOD_SECONDS: '1',
  });
  controllers.push(controller);
  return controller;
}

const ready = (app: AppProcess) =>
  waitFor(`${app.url} ready`, async () => (await app.readiness()).ready, {
    timeoutMs: 60_000,
    intervalMs: 200,
  });

/** A kubeconfig that reaches our API through the balancer with the editor's token. */
function balancerKubeconfig(): string {
  const file = join(scratch, 'kubeconfig');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'lb', cluster: { server: balancer.url, 'certificate-authority': CA_FILE } }],
      users: [{ name: 'eve', user: { token: TOKENS.editor } }],
      contexts: [{ name: 'lb', context: { cluster: 'lb', user: 'eve', namespace: NS } }],
      'current-context': 'lb',
    }),
  );
  return file;
}

beforeAll(async () => {
  // Shared sessions across replicas need the shared database: without PostgreSQL the tests are skipped.
  if (!POSTGRES_URL) return;
  scratch = mkdtempSync(join(tmpdir(), 'ngx-replicas-'));
  await kubectl('create', 'namespace', NS);
  database = await postgresDatabase();
  await migrate(database.url);
  // The API processes reach the database through a proxy the test can cut.
  const target = new URL(database.url);
  databaseProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(database.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(databaseProxy.port);
  for (let i = 0; i < 3; i++) apiPorts.push(await freePort());
  balancer = await startLoadBalancer(apiPorts);
  const secret = join(scratch, 'client-secret');
  writeFileSync(secret, CLIENT_SECRET);
  const policy = join(scratch, 'policy.yaml');
  writeFileSync(policy, `- group: "oidc:team-a"\n  role: editor\n  namespaces: [${NS}]\n`);
  apiEnv = {
    ROLE: 'api',
    WEB_MODE: 'production',
    DATABASE_URL: proxied.toString(),
    WATCH_NAMESPACE: NS,
    INSTALL_CRD: 'false',
    AUTH_TOKENS,
    AUTH_POLICY_FILE: policy,
    OIDC_ISSUER_URL: ISSUER,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET_FILE: secret,
    OIDC_CA_FILE: CA_FILE,
    OIDC_USERNAME_PREFIX: 'oidc:',
    OIDC_GROUPS_CLAIM: 'groups',
    OIDC_GROUPS_PREFIX: 'oidc:',
    // Every replica is reached at the balancer's origin.
    OIDC_REDIRECT_URL: `${balancer.url}${AUTH}/callback`,
  };
  provider = await startProvider({
    redirectUris: [`${balancer.url}${AUTH}/callback`],
    postLogoutRedirectUris: [`${balancer.url}/sign-in`],
    groups: { alice: ['team-a'] },
    idTokenSeconds: ID_TOKEN_SECONDS,
  });
  await Promise.all([0, 1, 2].map(startApi));
  await Promise.all([startController(), startController()]);
  await Promise.all([...apis, ...controllers].map(ready));
  browser = await launchBrowser({ trustCertificates: [join(CLUSTER_DIR, 'pki/control-plane.crt')] });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([...apis, ...controllers].map((app) => app?.kill()));
  await balancer?.stop();
  await provider?.stop();
  await databaseProxy?.stop();
  await database?.drop().catch(() => {});
  await kubectl('delete', 'namespace', NS, '--wait=false').catch(() => {});
  client.close();
});

/** Signs in through the balancer with the scripted user agent; answers the jar holding the session cookie. */
async function scriptedSignIn(login: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const callback = await walkSignIn(jar, `${balancer.url}${AUTH}/sign-in?next=%2F`, login, (url) =>
    url.startsWith(`${balancer.url}${AUTH}/callback`),
  );
  const answer = await hop(jar, callback);
  expect(answer.status).toBe(303);
  return jar;
}

/** API process `index` over TLS, on its own port (bypassing the balancer). */
const replicaUrl = (index: number) => `https://127.0.0.1:${apiPorts[index]}`;

/** The browser session `cookie` sent to API process `index` directly; answers the status and the body. */
async function onReplica(
  index: number,
  cookie: string,
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
) {
  const answer = await tlsFetch(`${replicaUrl(index)}${path}`, {
    ...init,
    headers: { ...init.headers, cookie: `${SESSION_COOKIE}=${cookie}` },
  });
  return { status: answer.status, body: await answer.text() };
}

/** The session cookie a scripted sign-in left in `jar`. */
function sessionCookie(jar: CookieJar): string {
  const cookie = jar.get(balancer.url, SESSION_COOKIE);
  if (!cookie) throw new Error('the sign-in set no session cookie');
  return cookie;
}

describe.skipIf(!POSTGRES_URL)(
  'three API replicas behind a balancer without affinity, two controllers',
  () => {
    let page: Page;
    const kubectlWrites: { value: number; attempts: number; errors: string[] }[] = [];
    const browserWrites: { value: number; attempts: number; errors: string[] }[] = [];
    let navigations = 0;

    it('signs a person in through the provider and shows an Nginx live', async () => {
      await nginxes.create('web', 6);
      await nginxes.create('notes', 0);
      await nginxes.converged('web', 6, 60_000);
      page = await browser.context.newPage();
      onTestFailed(() => void screenshot(page, 'api-replicas-failed'));
      await signInThroughProvider(page, balancer.url, 'alice');
      await page.goto(`${balancer.url}/nginxes/${NS}/web`);
      await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor();
      await waitFor(
        'the page to show 6 replicas',
        async () => (await page.getByTestId('scale-input').inputValue()) === '6',
      );
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations++;
      });
    });

    it('keeps the person signed in and live, and every write, while each API restarts and the leader is killed mid-rollout', async () => {
      const pods = await podRecorder(client, NS, 'mycompany.com/nginx=web');
      const created = () => [...pods.seen.values()];
      const kubeconfig = balancerKubeconfig();
      let writing = true;
      // kubectl through the balancer: a merge patch of its own value each time, retried after a clear error.
      const kubectlLoop = (async () => {
        for (let value = 1; writing; value++) {
          const write = { value, attempts: 0, errors: [] as string[] };
          kubectlWrites.push(write);
          for (;;) {
            write.attempts++;
            try {
              await runKubectl([
                '--kubeconfig',
                kubeconfig,
                'patch',
                'nginx',
                'notes',
                '--type=merge',
                '-p',
                JSON.stringify({ spec: { minReadySeconds: value } }),
              ]);
              break;
            } catch (error) {
              write.errors.push((error as Error).message.split('\n').slice(-2).join(' '));
              await sleep(250);
            }
          }
        }
      })();
      // The browser, from the page the person has open: a write with its session cookie and CSRF token.
      const browserLoop = (async () => {
        for (let value = 1; writing; value++) {
          const write = { value, attempts: 0, errors: [] as string[] };
          browserWrites.push(write);
          for (;;) {
            write.attempts++;
            const status = await page.evaluate(
              async ({ ns, value }) => {
                const session = await fetch('/controlplane/v1/auth/session');
                if (!session.ok) return session.status;
                const { csrfToken } = (await session.json()) as { csrfToken: string };
                const answer = await fetch(`/apis/mycompany.com/v1/namespaces/${ns}/nginxes/notes`, {
                  method: 'PATCH',
                  headers: { 'Content-Type': 'application/merge-patch+json', 'X-CSRF-Token': csrfToken },
                  body: JSON.stringify({ spec: { progressDeadlineSeconds: 600 + value } }),
                });
                return answer.status;
              },
              { ns: NS, value },
            );
            if (status === 200) break;
            write.errors.push(String(status));
            await sleep(250);
          }
          await sleep(150);
        }
      })();

      // A rollout of web (minReadySeconds 2: a new pod every 2 s or so), the leader killed once a third is done.
      const [leader] = await waitFor('a leader', async () => {
        const states = await Promise.all(controllers.map((c) => c.readiness()));
        const index = states.findIndex((s) => s.checks.controller?.leader);
        return index >= 0 && [controllers[index]!];
      });
      await client.request({
        method: 'PATCH',
        path: `/apis/mycompany.com/v1/namespaces/${NS}/nginxes/web`,
        contentType: 'application/merge-patch+json',
        body: { spec: { image: 'nginx:1.27', minReadySeconds: 2 } },
      });
      const killed = (async () => {
        await waitFor('a third of the rollout', () => created().filter(isNewRevision).length >= 2, {
          timeoutMs: 60_000,
        });
        const up = created().filter(isNewRevision).length;
        await leader!.kill();
        console.log(`the leader ${leader!.identity} killed with ${up} of 6 new pods created`);
      })();

      // Each API process restarted in turn (SIGTERM, then again on its port), the next once it is ready.
      for (let index = 0; index < apis.length; index++) {
        const exit = await apis[index]!.terminate(30_000);
        expect(exit.killed, `API ${index} stopped by SIGTERM`).toBe(false);
        const started = performance.now();
        await ready(await startApi(index));
        console.log(
          `API ${index}: stopped in ${exit.ms} ms, ready again ${Math.round(performance.now() - started)} ms later`,
        );
        await sleep(1000);
      }
      await killed;
      writing = false;
      await Promise.all([kubectlLoop, browserLoop]);

      // The rollout finishes under the standby: 6 pods of the new revision, each created once.
      await waitFor(
        'the rollout to finish',
        async () => {
          const nginx = await nginxes.get('web');
          return (
            nginx.status?.updatedReplicas === 6 &&
            nginx.status?.readyReplicas === 6 &&
            nginx.status?.replicas === 6
          );
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      );
      const all = created();
      await pods.stop();
      expect(all.filter(isNewRevision)).toHaveLength(6);
      expect(all.filter((pod) => !isNewRevision(pod))).toHaveLength(6);

      // Every write went through (some after a clear error and a retry).
      expect(kubectlWrites.length).toBeGreaterThan(5);
      expect(browserWrites.length).toBeGreaterThan(5);
      console.log(
        `kubectl: ${kubectlWrites.length} writes, ${kubectlWrites.reduce((n, w) => n + w.errors.length, 0)} retried; ` +
          `browser: ${browserWrites.length} writes, ${browserWrites.reduce((n, w) => n + w.errors.length, 0)} retried`,
      );

      // The person is still signed in and live, without a reload: the page shows a change made now.
      expect(navigations).toBe(0);
      await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor({ timeout: 20_000 });
      await nginxes.scale('web', 5);
      await waitFor(
        'the page to show 5 replicas',
        async () => (await page.getByTestId('scale-input').inputValue()) === '5',
      );
      expect(await page.evaluate(() => fetch('/controlplane/v1/auth/session').then((r) => r.status))).toBe(
        200,
      );
    }, 300_000);

    it('holds each change exactly once in the audit', async () => {
      const changes = await waitFor(
        'every write in the change audit',
        async () => {
          const items = await notesChanges();
          const counted = changedValues(items);
          const missing = [
            ...kubectlWrites
              .filter((w) => !counted.minReadySeconds.has(w.value))
              .map((w) => `kubectl ${w.value}`),
            ...browserWrites
              .filter((w) => !counted.progressDeadlineSeconds.has(600 + w.value))
              .map((w) => `browser ${w.value}`),
          ];
          if (missing.length === 0) return counted;
          // Named in the timeout's message: which writes, and what the audit holds around them.
          throw new Error(
            `not in the audit: ${missing.join(', ')} (writes: ${JSON.stringify({ kubectlWrites, browserWrites })}; ` +
              `records: ${JSON.stringify(items.map((i) => [i.verb, i.actor, i.code, fieldsOf(i.specBefore), fieldsOf(i.specAfter)]))}; ` +
              `audit writer errors: ${JSON.stringify(auditWriterErrors())})`,
          );
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
      for (const write of kubectlWrites)
        expect(changes.minReadySeconds.get(write.value), `kubectl ${write.value}`).toBe(1);
      for (const write of browserWrites)
        expect(changes.progressDeadlineSeconds.get(600 + write.value), `browser ${write.value}`).toBe(1);
      // Nothing else was recorded about notes: no write seen by the informer alone (actor unknown), which a
      // write lost between kube-apiserver and our record would have become.
      expect(
        (await notesChanges()).filter((item) => item.verb !== 'create' && !WRITERS.has(item.actor ?? '')),
      ).toEqual([]);
    }, 90_000);

    it('keeps each pod of the rollout in the timeline once, whichever replicas were up', async () => {
      const created = await waitFor(
        "every pod's creation in the timeline",
        async () => {
          const entries = await webTimeline();
          const byPod = new Map<string, number>();
          for (const entry of entries)
            if (entry.kind === 'pod' && entry.evidence?.what === 'created')
              byPod.set(entry.evidence.podUid!, (byPod.get(entry.evidence.podUid!) ?? 0) + 1);
          return byPod.size >= 12 && byPod;
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
      expect([...created.values()].every((n) => n === 1)).toBe(true);
    });

    describe('faults', () => {
      it('an API process killed mid-request: nothing half-written, the retry on another replica lands once', async () => {
        const before = await nginxes.get('notes');
        const body = JSON.stringify({ spec: { revisionHistoryLimit: 7 } });
        // The request's headers and half its body reach replica 0; then it is killed.
        const socket = tlsConnect({ host: '127.0.0.1', port: apiPorts[0]!, ca: readFileSync(CA_FILE) });
        await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.on('error', () => {});
        socket.write(
          `PATCH /apis/mycompany.com/v1/namespaces/${NS}/nginxes/notes HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
            `Authorization: Bearer ${TOKENS.editor}\r\nContent-Type: application/merge-patch+json\r\n` +
            `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
        );
        await sleep(300);
        await apis[0]!.kill();
        await closed;
        const after = await nginxes.get('notes');
        expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
        expect(after.spec.revisionHistoryLimit).toBe(before.spec.revisionHistoryLimit);
        // The client retries through the balancer (the dead upstream refuses; another takes it).
        const retried = await tlsFetch(
          `${balancer.url}/apis/mycompany.com/v1/namespaces/${NS}/nginxes/notes`,
          {
            method: 'PATCH',
            headers: {
              Authorization: `Bearer ${TOKENS.editor}`,
              'Content-Type': 'application/merge-patch+json',
            },
            body,
          },
        );
        expect(retried.status).toBe(200);
        await ready(await startApi(0));
        const items = await waitFor('the retried write in the audit', async () => {
          const hits = (await notesChanges()).filter((item) => item.specAfter?.revisionHistoryLimit === 7);
          return hits.length > 0 && hits;
        });
        expect(items).toHaveLength(1);
      });

      it('the database unreachable for session reads: 503, and nobody is signed out', async () => {
        const cookie = sessionCookie(await scriptedSignIn('alice'));
        expect((await onReplica(1, cookie, '/controlplane/v1/whoami')).status).toBe(200);
        databaseProxy.cut();
        try {
          for (const index of [0, 1, 2]) {
            const answer = await onReplica(index, cookie, '/controlplane/v1/whoami');
            expect(answer.status, `replica ${index}`).toBe(503);
            expect(answer.body).toMatch(/session/);
          }
        } finally {
          databaseProxy.heal();
        }
        await waitFor(
          'the session back',
          async () => (await onReplica(2, cookie, '/controlplane/v1/whoami')).status === 200,
          {
            timeoutMs: 20_000,
            intervalMs: 500,
          },
        );
        for (const index of [0, 1, 2])
          expect((await onReplica(index, cookie, '/controlplane/v1/whoami')).status).toBe(200);
        // The person's browser too: still signed in.
        expect(await page.evaluate(() => fetch('/controlplane/v1/auth/session').then((r) => r.status))).toBe(
          200,
        );
      });

      it('two replicas renewing one session at once: the provider sees one refresh-token grant', async () => {
        // Nobody else renews meanwhile: the person's page is closed.
        await page.close();
        const cookie = sessionCookie(await scriptedSignIn('alice'));
        // Let the ID token expire, with nobody using this session (nor renewing any) meanwhile.
        const before = provider.grants('refresh_token');
        await staysTrue(
          'no refresh_token grant meanwhile',
          () => provider.grants('refresh_token') === before,
          (ID_TOKEN_SECONDS + 1) * 1000,
        );
        const answers = await Promise.all(
          [0, 1, 2].map((index) => onReplica(index, cookie, '/controlplane/v1/whoami')),
        );
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
        expect(provider.grants('refresh_token') - before).toBe(1);
      });

      it('a cookie replayed on another replica after sign-out: 401, and its live connection there is closed', async () => {
        const cookie = sessionCookie(await scriptedSignIn('alice'));
        // A live connection of the session on replica 1, before the sign-out on replica 0.
        const socket = io(apis[1]!.url, {
          path: '/socket.io',
          transports: ['websocket'],
          reconnection: false,
          extraHeaders: { cookie: `${SESSION_COOKIE}=${cookie}` },
        });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        const closed = new Promise<void>((resolve) => socket.once('disconnect', () => resolve()));
        const { csrfToken } = JSON.parse((await onReplica(0, cookie, `${AUTH}/session`)).body) as {
          csrfToken: string;
        };
        const out = await onReplica(0, cookie, `${AUTH}/sign-out`, {
          method: 'POST',
          headers: { 'X-CSRF-Token': csrfToken, Origin: replicaUrl(0) },
        });
        expect(out.status).toBe(200);
        for (const index of [1, 2]) {
          const replayed = await onReplica(index, cookie, '/controlplane/v1/whoami');
          expect(replayed.status, `replica ${index}`).toBe(401);
        }
        // Replica 1 looks at its connections' sessions every 10 s.
        await Promise.race([
          closed,
          sleep(15_000).then(() => {
            throw new Error('the live connection of the ended session is still open after 15 s');
          }),
        ]);
        socket.close();
      });
    });
  },
);

/** Every change record of the Nginx `notes`, page by page, read through one API process. */
async function notesChanges(): Promise<ChangeItem[]> {
  const items: ChangeItem[] = [];
  let after: string | undefined;
  do {
    const query = new URLSearchParams({
      namespace: NS,
      name: 'notes',
      limit: '500',
      ...(after ? { continue: after } : {}),
    });
    const answer = await fetch(`${apis[1]!.url}/controlplane/v1/audit/changes?${query}`, {
      headers: { Authorization: `Bearer ${TOKENS.admin}` },
    });
    if (!answer.ok) throw new Error(`audit/changes answered ${answer.status}: ${await answer.text()}`);
    const page = (await answer.json()) as { items: ChangeItem[]; metadata: { continue?: string } };
    items.push(...page.items);
    after = page.metadata.continue;
  } while (after);
  return items;
}

/** The timeline of the Nginx `web` (pod transitions and Events), page by page, read through one API process. */
async function webTimeline(): Promise<TimelineItem[]> {
  const items: TimelineItem[] = [];
  let after: string | undefined;
  do {
    const query = new URLSearchParams({
      kind: 'pod,event',
      limit: '500',
      ...(after ? { continue: after } : {}),
    });
    const answer = await fetch(
      `${apis[2]!.url}/controlplane/v1/namespaces/${NS}/nginxes/web/timeline?${query}`,
      {
        headers: { Authorization: `Bearer ${TOKENS.admin}` },
      },
    );
    if (!answer.ok) throw new Error(`timeline answered ${answer.status}: ${await answer.text()}`);
    const page = (await answer.json()) as { items: TimelineItem[]; metadata: { continue?: string } };
    items.push(...page.items);
    after = page.metadata.continue;
  } while (after);
  return items;
}

interface TimelineItem {
  kind: string;
  evidence?: { what: string; podUid: string | null };
}

interface ChangeItem {
  verb: string;
  actor: string | null;
  code: number | null;
  specBefore: Record<string, unknown> | null;
  specAfter: Record<string, unknown> | null;
}

/** Who writes notes: kubectl with the editor's token (minReadySeconds), the person's browser (progressDeadlineSeconds). */
const WRITERS = new Map([
  [TOKEN_NAMES.editor, 'minReadySeconds'],
  ['oidc:alice', 'progressDeadlineSeconds'],
] as const);

/**
 * How many change records of each writer set its field to each value. A record's spec before is the API's view just
 * before the write, so a concurrent write of the other writer may show in it: each writer's field is read from its
 * own records only.
 */
function changedValues(items: ChangeItem[]) {
  const counted = {
    minReadySeconds: new Map<number, number>(),
    progressDeadlineSeconds: new Map<number, number>(),
  };
  for (const item of items) {
    const field = WRITERS.get(item.actor as never);
    const value = field && item.specAfter?.[field];
    if (!field || typeof value !== 'number' || item.specBefore?.[field] === value) continue;
    counted[field].set(value, (counted[field].get(value) ?? 0) + 1);
  }
  return counted;
}

/** The fields the writers set (WRITERS), out of a spec in a change record. */
const fieldsOf = (spec: Record<string, unknown> | null) =>
  spec && [...WRITERS.values()].map((field) => spec[field]);

const isNewRevision = (pod: V1Pod) => pod.spec?.containers?.[0]?.image === 'nginx:1.27';
