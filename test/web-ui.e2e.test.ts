// The web UI in a real browser: Debian's Chromium (playwright-core) against the built app (apps/api/dist serving
// apps/web/.next on one origin) with its controller on, on the local cluster. A user signs in, creates an Nginx
// with the form, watches its pods appear and turn Running, scales it 2 → 5 → 1, sees a pod deleted with kubectl
// replaced, reads the audit trail, is stopped by validation, and deletes it — every change arriving without a
// reload. A viewer sees no write controls and a forged write is refused; a socket without a token is refused.
// Every main page passes axe-core (no serious or critical violations) in the light and the dark scheme, the list
// stays virtualised with 1,000 Nginxes, and screenshots of each page land in .data/screenshots/. Every page comes
// with a nonce-based Content-Security-Policy that nothing in these tests breaks, and signing in never leads away.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { io } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  describeViolations,
  launchBrowser,
  markDocument,
  newTab,
  notReloaded,
  reportCspViolations,
  screenshot,
  signInWith,
  type TestBrowser,
} from './support/browser.js';
import {
  TOKEN_NAMES,
  TOKENS,
  startWebControlPlane,
  tlsFetch,
  type ControlPlane,
  type TestRole,
} from './support/control-plane.js';
import { metric } from './support/app-process.js';
import { kubectl, kubectlApply } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const NS = uniqueName('web-ui');
const BULK_NS = uniqueName('web-ui-bulk');
const NAME = 'web';
const TOKEN_KEY = 'ngx.token';
/** An editor limited to the test's namespace (from a token file, next to the three AUTH_TOKENS). */
const LIMITED = { name: 'lee-limited', token: 'limited-token-0123456789abcdef' };

let cp: ControlPlane;
let browser: TestBrowser;
/** The editor's tab, carried from one test to the next like a user's session. */
let editor: Page;
/** A second editor tab that keeps the list open while the first one works. */
let listTab: Page;
const pageErrors: string[] = [];
/** Every `securitypolicyviolation` any page of the browser reported (see `reportCspViolations`). */
const cspViolations: string[] = [];

const nginxPath = (name: string, ns = NS) => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes/${name}`;

interface PodRow {
  name: string;
  uid: string;
  phase: string;
  terminating: boolean;
}

/** The pod rows of the detail page, as the table shows them. */
const podRows = (page: Page): Promise<PodRow[]> =>
  page.getByTestId('pod-row').evaluateAll((rows) =>
    rows.map((row) => ({
      name: row.getAttribute('data-pod') ?? '',
      uid: row.getAttribute('data-uid') ?? '',
      phase: row.getAttribute('data-phase') ?? '',
      terminating: row.getAttribute('data-terminating') === 'true',
    })),
  );

/** Waits until the detail page shows exactly `count` pods, all Running and none terminating. */
const runningPods = (page: Page, count: number, timeoutMs = 60_000) =>
  waitFor(
    `${count} Running pod rows`,
    async () => {
      const rows = await podRows(page);
      return rows.length === count && rows.every((r) => r.phase === 'Running' && !r.terminating) && rows;
    },
    { timeoutMs, intervalMs: 200 },
  );

const signIn = (page: Page, role: TestRole) => signInWith(page, cp.url, TOKENS[role], TOKEN_NAMES[role]);

const liveConnections = () => metric(cp, 'nginx_live_connections');

/**
 * The live connection count once it has held for a second: a tab that just navigated (the previous test ends on
 * another page) closes its old connection and opens a new one, and a busy server may take a moment to see both.
 */
async function settledLiveConnections(): Promise<number> {
  let last = NaN;
  let since = Date.now();
  return waitFor(
    'the live connection count to settle',
    async () => {
      const now = await liveConnections();
      if (now !== last) [last, since] = [now, Date.now()];
      return Date.now() - since >= 1000 && now;
    },
    { timeoutMs: 20_000, intervalMs: 100 },
  );
}

beforeAll(async () => {
  await kubectl('create', 'namespace', NS);
  cp = await startWebControlPlane([NS, BULK_NS], LIMITED);
  browser = await launchBrowser();
  await reportCspViolations(browser, cspViolations);
  editor = await newTab(browser, pageErrors);
});

afterEach(async (context) => {
  if (context.task.result?.state !== 'fail') return;
  // What the pages showed when it failed, and what the app said.
  const slug = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
  for (const [tab, page] of [
    ['editor', editor],
    ['list', listTab],
  ] as const)
    if (page && !page.isClosed()) await screenshot(page, `failed-${slug}-${tab}`).catch(() => {});
  const tail = cp
    ?.output()
    .split('\n')
    .slice(-15)
    .map((line) => line.slice(0, 300));
  console.log(`--- app output (tail):\n${tail?.join('\n')}`);
});

afterAll(async () => {
  await browser?.close();
  await cp?.stop();
  await kubectl('delete', 'namespace', NS, BULK_NS, '--wait=false', '--ignore-not-found').catch(() => {});
});

describe('the web UI in a real browser', () => {
  it('sends a visitor without a token to sign in, refuses a wrong token and signs in with a right one', async () => {
    await editor.goto(`${cp.url}/audit`);
    await waitFor('the redirect to sign in', () => editor.url().includes('/sign-in?next=%2Faudit'));
    // The address changes first; the sign-in page (and its title) renders a moment later on a busy machine.
    await waitFor('the sign-in page', async () => (await editor.title()) === 'Sign in · Nginx control plane');

    await editor.getByLabel('API token').fill('not-a-valid-token-0123456789');
    await editor.getByRole('button', { name: 'Sign in' }).click();
    await editor.getByText('This token was not accepted').waitFor({ timeout: 10_000 });

    await editor.getByLabel('API token').fill(TOKENS.editor);
    await editor.getByRole('button', { name: 'Sign in' }).click();
    // Back where the visitor wanted to go, with the name and role in the header and the live connection up.
    await waitFor('the audit page', () => new URL(editor.url()).pathname === '/audit');
    const identity = await editor.getByTestId('identity').innerText();
    expect(identity).toContain(TOKEN_NAMES.editor);
    expect(identity).toContain('editor');
    await editor.getByTestId('connection-state').getByText('Live').waitFor({ timeout: 20_000 });

    // The token is kept for this tab only: sessionStorage, not localStorage or a cookie.
    const stored = await editor.evaluate((key) => {
      const g = globalThis as unknown as {
        sessionStorage: { getItem: (k: string) => string | null };
        localStorage: { length: number };
        document: { cookie: string };
      };
      return {
        session: g.sessionStorage.getItem(key),
        local: g.localStorage.length,
        cookie: g.document.cookie,
      };
    }, TOKEN_KEY);
    expect(stored).toEqual({ session: TOKENS.editor, local: 0, cookie: '' });
  });

  it('creates an Nginx with the form: it appears in an open list, and its pods appear and turn Running, live', async () => {
    listTab = await newTab(browser, pageErrors);
    await signIn(listTab, 'editor');
    await listTab.goto(`${cp.url}/?namespace=${NS}`);
    await listTab.getByTestId('empty-state').getByText('Create an Nginx to run nginx pods').waitFor();
    await markDocument(listTab);

    await editor.goto(`${cp.url}/nginxes/new?namespace=${NS}`);
    await editor.getByLabel('Name', { exact: true }).fill(NAME);
    expect(await editor.getByLabel('Namespace', { exact: true }).inputValue()).toBe(NS);
    await editor.getByLabel('Replicas', { exact: true }).fill('2');
    await editor.getByRole('button', { name: 'Create', exact: true }).click();

    await waitFor('the detail page', () => new URL(editor.url()).pathname === `/nginxes/${NS}/${NAME}`);
    await editor.getByTestId('nginx-title').getByText(NAME).waitFor();
    await markDocument(editor);
    const pods = await runningPods(editor, 2);
    expect(new Set(pods.map((p) => p.uid)).size).toBe(2);

    // The open list got the new row, and then its ready count, without a reload.
    const row = listTab.locator(`[data-testid="nginx-row"][data-name="${NAME}"]`);
    await waitFor('the new row in the list', async () => (await row.count()) === 1);
    await waitFor('2/2 ready in the list', async () =>
      (await row.getByTestId('nginx-ready').innerText()).includes('2/2'),
    );
    expect(await notReloaded(listTab)).toBe(true);
    await waitFor('the Available badge', async () => (await row.getByText('Available').count()) === 1);

    // Conditions and events follow on the detail page.
    await editor.getByTestId('condition-Available').waitFor({ timeout: 20_000 });
    await waitFor('the SuccessfulCreate events', async () =>
      (await editor.getByTestId('event-row').allInnerTexts()).some((t) => t.includes('SuccessfulCreate')),
    );
    expect(await notReloaded(editor)).toBe(true);
  }, 120_000);

  it('scales 2 → 5 → 1 with the stepper and the number input, and the pod rows follow', async () => {
    const input = editor.getByTestId('scale-input');
    expect(await input.inputValue()).toBe('2');
    for (let i = 0; i < 3; i++) await editor.getByRole('button', { name: 'Increase replicas' }).click();
    expect(await input.inputValue()).toBe('5');
    await editor.getByRole('button', { name: 'Scale', exact: true }).click();
    await runningPods(editor, 5);

    await input.fill('1');
    await editor.getByRole('button', { name: 'Scale', exact: true }).click();
    const [survivor] = await runningPods(editor, 1);
    expect(survivor).toBeDefined();
    expect(await notReloaded(editor)).toBe(true);

    const { spec } = (await (await cp.as('admin')(nginxPath(NAME))).json()) as { spec: { replicas: number } };
    expect(spec.replicas).toBe(1);
    await screenshot(editor, 'detail-after-scaling-light');
    const timeline = await editor.getByTestId('pod-transition').allInnerTexts();
    expect(timeline.some((line) => line.includes('created'))).toBe(true);
    expect(timeline.some((line) => line.includes('deleted'))).toBe(true);
  }, 150_000);

  it('replaces a pod deleted with kubectl, and the table shows it without a reload', async () => {
    const [before] = await runningPods(editor, 1);
    await kubectl('delete', 'pod', before!.name, '-n', NS, '--wait=false');
    const [after] = await waitFor(
      'the replacement pod',
      async () => {
        const rows = await podRows(editor);
        return (
          rows.length === 1 &&
          rows[0]!.uid !== before!.uid &&
          rows[0]!.phase === 'Running' &&
          !rows[0]!.terminating &&
          rows
        );
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(after!.name).not.toBe(before!.name);
    await waitFor('the deletion in the timeline', async () =>
      (await editor.getByTestId('pod-transition').allInnerTexts()).some(
        (line) => line.includes(before!.name) && line.includes('deleted'),
      ),
    );
    expect(await notReloaded(editor)).toBe(true);
  }, 90_000);

  it('shows those reconciles and changes on the audit page, linked pre-filtered from the detail page', async () => {
    await editor.getByTestId('audit-link').click();
    await waitFor('the audit page', () => editor.url().includes(`/audit?namespace=${NS}&name=${NAME}`));

    const actions = await waitFor(
      'the reconciles that created and deleted pods',
      async () => {
        const texts = await editor.getByTestId('reconcile-actions').allInnerTexts();
        return (
          texts.some((t) => /created \d+ pods?/.test(t)) &&
          texts.some((t) => /deleted \d+ pods?/.test(t)) &&
          texts
        );
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    const created = actions
      .map((t) => Number(/created (\d+) pod/.exec(t)?.[1] ?? 0))
      .reduce((a, b) => a + b, 0);
    const deleted = actions
      .map((t) => Number(/deleted (\d+) pod/.exec(t)?.[1] ?? 0))
      .reduce((a, b) => a + b, 0);
    // 2 at creation, 3 more for 5, and one replacement; 4 deleted for 1 (the kubectl deletion is not ours).
    expect(created).toBe(6);
    expect(deleted).toBe(4);
    const rows = editor.getByTestId('reconcile-row');
    expect(await rows.evaluateAll((r) => r.map((row) => row.getAttribute('data-key')))).toEqual(
      Array((await rows.count()) as number).fill(`${NS}/${NAME}`),
    );

    // A row expands to its full action list.
    await rows
      .filter({ hasText: /created \d+ pod/ })
      .first()
      .getByRole('button', { name: /^Details of the reconcile/ })
      .click();
    await editor
      .getByText(/^created pod \S+$/)
      .first()
      .waitFor();

    // The change log: the create and the two scales, the latter with a diff of the spec.
    await editor.getByRole('tab', { name: 'Changes' }).click();
    await waitFor('the change rows', async () => (await editor.getByTestId('change-row').count()) === 3);
    const verbs = await editor
      .getByTestId('change-row')
      .evaluateAll((r) => r.map((row) => row.getAttribute('data-verb')));
    expect(verbs).toEqual(['patch', 'patch', 'create']);
    const text = await editor.getByTestId('change-table').innerText();
    expect(text).toContain('patch/scale');
    expect(text).toContain(TOKEN_NAMES.editor);
    await editor.getByTestId('change-row').nth(1).getByRole('button').click();
    const diff = await editor.getByTestId('spec-diff').textContent();
    expect(diff).toMatch(/removed: replicas: 2/);
    expect(diff).toMatch(/added: replicas: 5/);
    // Who made it: the token's name, signed in with a token, which names no groups.
    expect(await editor.getByTestId('change-person').innerText()).toBe(
      `${TOKEN_NAMES.editor} (signed in with token)`,
    );
    expect(await editor.getByTestId('change-person-groups').innerText()).toBe('—');
    await screenshot(editor, 'audit-changes-light');

    // Export: fetched with the token, saved through a Blob URL.
    const [download] = await Promise.all([
      editor.waitForEvent('download'),
      editor.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^changes-.*\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(csv[0]).toMatch(/^id,at,actor,role,verb,namespace,name/);
    expect(csv.filter((line) => line.includes(`,${NS},${NAME},`))).toHaveLength(3);

    // A filter the server refuses: an error state naming the problem, with a Retry button.
    await editor.goto(`${cp.url}/audit?name=Not_A_Name`);
    const error = editor.getByTestId('error-state');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/Could not load the reconciles[\s\S]*name/);
    await error.getByRole('button', { name: 'Retry' }).click();
    await error.waitFor();
  }, 90_000);

  it('edits the image in place and copies the manifest without managedFields', async () => {
    await editor.goto(`${cp.url}/nginxes/${NS}/${NAME}`);
    await runningPods(editor, 1);
    await markDocument(editor);
    const image = editor.getByTestId('image-input');
    expect(await image.inputValue()).toBe('nginx:latest');
    await image.fill('nginx:1.27-alpine');
    await editor.getByRole('button', { name: 'Save image' }).click();
    await waitFor('the new image in the manifest', async () =>
      (await editor.getByTestId('manifest-yaml').innerText()).includes('image: nginx:1.27-alpine'),
    );
    const { spec } = (await (await cp.as('admin')(nginxPath(NAME))).json()) as { spec: { image: string } };
    expect(spec.image).toBe('nginx:1.27-alpine');

    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: cp.url });
    await editor.bringToFront();
    await editor.getByRole('button', { name: 'Copy', exact: true }).click();
    await editor.getByRole('status').getByText('Copied', { exact: true }).waitFor();
    const copied = await editor.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText: () => Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(copied).toContain(`name: ${NAME}`);
    expect(copied).toContain('kind: Nginx');
    expect(copied).not.toContain('managedFields');
    expect(await notReloaded(editor)).toBe(true);
  });

  it('shows the connection going offline and, back online, a fresh snapshot with what changed meanwhile', async () => {
    await runningPods(editor, 1);
    const connection = editor.getByTestId('connection-state');
    await connection.getByText('Live').waitFor();
    await browser.context.setOffline(true);
    try {
      await connection.getByText('Offline').waitFor({ timeout: 20_000 });
      await kubectl('scale', 'ngx', NAME, '-n', NS, '--replicas=3');
      // Give the controller time to act while the page cannot hear about it.
      await waitFor(
        'three running pods in the cluster',
        async () =>
          (
            await kubectl(
              'get',
              'pods',
              '-n',
              NS,
              '-l',
              `mycompany.com/nginx=${NAME}`,
              '--field-selector=status.phase=Running',
              '-o',
              'name',
            )
          )
            .trim()
            .split('\n').length === 3,
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      // The page cannot hear about them while offline …
      expect(await podRows(editor)).toHaveLength(1);
    } finally {
      await browser.context.setOffline(false);
    }
    // … and sees them once it has reconnected and subscribed again.
    await connection.getByText('Live').waitFor({ timeout: 30_000 });
    await runningPods(editor, 3);
    expect(await editor.getByTestId('scale-input').inputValue()).toBe('3');
    expect(await notReloaded(editor)).toBe(true);

    await editor.getByTestId('scale-input').fill('1');
    await editor.getByRole('button', { name: 'Scale', exact: true }).click();
    await runningPods(editor, 1);
  }, 120_000);

  it('shows a namespace-limited token only its own namespace', async () => {
    const limited = await newTab(browser, pageErrors);
    await limited.goto(`${cp.url}/sign-in`);
    await limited.getByLabel('API token').fill(LIMITED.token);
    await limited.getByRole('button', { name: 'Sign in' }).click();
    await limited.getByTestId('identity').getByText(LIMITED.name).waitFor();

    // The list starts in its namespace, and the picker offers nothing else.
    await limited.locator(`[data-testid="nginx-row"][data-name="${NAME}"]`).waitFor();
    const options = await limited.getByTestId('namespace-select').locator('option').allInnerTexts();
    expect(options).toEqual([NS]);
    expect(await limited.getByTestId('create-nginx').count()).toBe(1);

    await limited.goto(`${cp.url}/nginxes/new`);
    const namespace = limited.getByLabel('Namespace', { exact: true });
    expect(await namespace.evaluate((el) => el.tagName)).toBe('SELECT');
    expect(await namespace.locator('option').allInnerTexts()).toEqual([NS]);

    await limited.goto(`${cp.url}/audit`);
    await limited.getByTestId('reconcile-row').first().waitFor();
    expect(await limited.getByLabel('Namespace', { exact: true }).inputValue()).toBe(NS);
    await limited.close();
  });

  it('shows an invalid replicas value as a field error as it is typed, and creates nothing', async () => {
    const bad = 'bad-replicas';
    await editor.goto(`${cp.url}/nginxes/new?namespace=${NS}`);
    await editor.getByLabel('Name', { exact: true }).fill(bad);
    const replicas = editor.getByLabel('Replicas', { exact: true });
    await replicas.fill('5000');
    const error = editor.getByTestId('error-spec-replicas');
    expect(await error.innerText()).toContain('less than or equal to 1000');
    expect(await replicas.getAttribute('aria-invalid')).toBe('true');
    await editor.getByRole('button', { name: 'Create', exact: true }).click();
    // Focus goes to the field; nothing is sent.
    await waitFor('focus on the replicas field', () =>
      editor.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement
            .id === 'spec-replicas',
      ),
    );

    // The same in YAML mode: the manifest is checked against the schema as it is typed.
    await editor.getByRole('button', { name: 'YAML' }).click();
    const manifest = editor.getByLabel('Manifest (YAML)');
    expect(await manifest.inputValue()).toContain('replicas: 5000');
    await manifest.fill(
      `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: ${bad}\nspec:\n  replicas: -1\n`,
    );
    expect(await editor.getByTestId('error-manifest-yaml').innerText()).toContain('spec.replicas');
    await editor.getByRole('button', { name: 'Create', exact: true }).click();
    expect(new URL(editor.url()).pathname).toBe('/nginxes/new');

    // A server refusal lands in an alert: a YAML manifest naming an Nginx that exists.
    await manifest.fill(
      `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: ${NAME}\nspec:\n  replicas: 2\n`,
    );
    await editor.getByRole('button', { name: 'Create', exact: true }).click();
    expect(await editor.getByTestId('form-alert').innerText()).toMatch(/already exists/);

    // In the form, refusals that concern a field land next to it: a taken name, a namespace that does not exist
    // (the bulk test's, which the control plane watches but nobody has created yet).
    await editor.getByRole('button', { name: 'Form' }).click();
    await editor.getByRole('button', { name: 'Create', exact: true }).click();
    expect(await editor.getByTestId('error-metadata-name').innerText()).toMatch(/already exists/);
    await editor.getByLabel('Namespace', { exact: true }).selectOption(BULK_NS);
    await editor.getByRole('button', { name: 'Create', exact: true }).click();
    expect(await editor.getByTestId('error-metadata-namespace').innerText()).toMatch(
      new RegExp(`namespace "${BULK_NS}" does not exist`, 'i'),
    );

    expect((await cp.as('admin')(nginxPath(bad))).status).toBe(404);
    const changes = (await (
      await cp.as('admin')(`/controlplane/v1/audit/changes?namespace=${NS}&name=${bad}`)
    ).json()) as { items: unknown[] };
    expect(changes.items).toEqual([]); // never even sent
  }, 60_000);

  it('shows a viewer no write controls anywhere, and the API refuses a write forged from the page', async () => {
    const viewer = await newTab(browser, pageErrors);
    await signIn(viewer, 'viewer');
    expect(await viewer.getByTestId('identity').innerText()).toContain('viewer');

    await viewer.goto(`${cp.url}/?namespace=${NS}`);
    await viewer.locator(`[data-testid="nginx-row"][data-name="${NAME}"]`).waitFor();
    expect(await viewer.getByTestId('create-nginx').count()).toBe(0);
    expect(await viewer.getByRole('link', { name: 'Create an Nginx' }).count()).toBe(0);

    await viewer.goto(`${cp.url}/nginxes/${NS}/${NAME}`);
    await runningPods(viewer, 1);
    expect(await viewer.getByTestId('spec-replicas').innerText()).toBe('1');
    for (const control of ['scale-input', 'image-input', 'scale-form', 'image-form'])
      expect(await viewer.getByTestId(control).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: /Delete|Scale|Save|Increase|Decrease/ }).count()).toBe(0);

    await viewer.goto(`${cp.url}/nginxes/new`);
    await viewer.getByText('Your role cannot create Nginxes').waitFor();
    expect(await viewer.getByRole('button', { name: 'Create', exact: true }).count()).toBe(0);

    // A write forged from the page with the viewer's own token: refused, and nothing changes.
    const status = await viewer.evaluate(
      async ({ path, key }) => {
        const token = (
          globalThis as unknown as { sessionStorage: { getItem: (k: string) => string } }
        ).sessionStorage.getItem(key);
        const response = await fetch(path, {
          method: 'PATCH',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/merge-patch+json' },
          body: JSON.stringify({ spec: { replicas: 7 } }),
        });
        return { code: response.status, body: (await response.json()) as { kind: string; reason: string } };
      },
      { path: nginxPath(NAME), key: TOKEN_KEY },
    );
    expect(status.code).toBe(403);
    expect(status.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    const { spec } = (await (await cp.as('admin')(nginxPath(NAME))).json()) as { spec: { replicas: number } };
    expect(spec.replicas).toBe(1);
    await viewer.close();
  }, 60_000);

  it('refuses a live connection without a token', async () => {
    for (const auth of [{}, { token: 'wrong-token-0123456789abcdef' }]) {
      const socket = io(cp.url, { path: '/socket.io', auth, transports: ['websocket'], reconnection: false });
      const error = await new Promise<Error | undefined>((resolve) => {
        socket.once('connect', () => resolve(undefined));
        socket.once('connect_error', resolve);
      });
      socket.close();
      expect(error?.message).toBe('unauthorized');
    }
  });

  it('answers every page with a fresh-nonce Content-Security-Policy, nosniff and no-referrer, HSTS over TLS only', async () => {
    const paths = ['/sign-in', '/', '/audit', '/nginxes/new', `/nginxes/${NS}/${NAME}`, '/no-such-page'];
    const nonces = new Set<string>();
    for (const path of paths) {
      const response = await fetch(`${cp.url}${path}`);
      const policy = response.headers.get('content-security-policy') ?? '';
      const nonce = /'nonce-([A-Za-z0-9+/]+={0,2})'/.exec(policy)?.[1];
      expect(nonce, `${path}: ${policy}`).toBeDefined();
      nonces.add(nonce!);
      // Scripts only with the nonce (or loaded by one): no 'unsafe-inline', no 'unsafe-eval' in production.
      expect(policy, path).toMatch(/(?:^|; )script-src 'self' 'nonce-[^']+' 'strict-dynamic'(?:;|$)/);
      expect(policy, path).toMatch(/(?:^|; )frame-ancestors 'none'(?:;|$)/);
      expect(policy, path).toMatch(/(?:^|; )object-src 'none'(?:;|$)/);
      expect(policy, path).toMatch(/(?:^|; )form-action 'self'(?:;|$)/);
      expect(policy, path).toMatch(/(?:^|; )base-uri '(?:none|self)'(?:;|$)/);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(response.headers.get('strict-transport-security'), path).toBeNull();
      // Next.js put this response's nonce on every script of the page, so it was rendered for this request.
      const scripts = (await response.text()).match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag, path).toContain(`nonce="${nonce}"`);
    }
    expect(nonces.size).toBe(paths.length);

    const overTls = await tlsFetch(`${cp.httpsUrl}/sign-in`);
    expect(overTls.status).toBe(200);
    expect(overTls.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    expect(overTls.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(overTls.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("lands on the app's own / after signing in from a link whose next points to another site", async () => {
    const tab = await newTab(browser, pageErrors);
    const home = `${cp.url}/`;
    /** Waits for the tab to show `url`, saying where it went instead. */
    const landsOn = (url: string, after: string) =>
      waitFor(`${url} after ${after}`, () => tab.url() === url).catch((error: Error) => {
        throw new Error(`${error.message}; the tab is at ${tab.url()}`);
      });
    // `%09` arrives as a tab, which the URL parser drops: `/\t/evil.example` is `//evil.example`.
    for (const next of ['/%09/evil.example', '//evil.example']) {
      await tab.goto(`${cp.url}/sign-in?next=${next}`);
      await tab.getByLabel('API token').fill(TOKENS.viewer);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByTestId('identity').getByText(TOKEN_NAMES.viewer).waitFor({ timeout: 20_000 });
      await landsOn(home, `signing in with next=${next}`);
      await tab.getByRole('button', { name: 'Sign out' }).click();
      await waitFor('the sign-in page', () => new URL(tab.url()).pathname === '/sign-in');
    }
    // Already signed in, the sign-in page sends the visitor on at once: to the same safe place.
    await signIn(tab, 'viewer');
    await tab.goto(`${cp.url}/sign-in?next=/%5Cevil.example`);
    await landsOn(home, 'a signed-in visit to /sign-in?next=/%5Cevil.example');
    // A same-origin path is still where signing in leads.
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await waitFor('the sign-in page', () => new URL(tab.url()).pathname === '/sign-in');
    await tab.goto(`${cp.url}/sign-in?next=${encodeURIComponent(`/audit?namespace=${NS}`)}`);
    await tab.getByLabel('API token').fill(TOKENS.viewer);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await landsOn(`${cp.url}/audit?namespace=${NS}`, 'signing in with next=/audit?namespace=…');
    await tab.close();
  });

  it('passes axe-core on every main page in the light and the dark scheme (screenshots of each)', async () => {
    // A few more Nginxes, so the list looks like one.
    for (const [name, replicas, image] of [
      ['api-gateway', 3, 'nginx:1.27-alpine'],
      ['static-site', 0, 'nginx:latest'],
    ] as const)
      await kubectlApply(
        JSON.stringify({
          apiVersion: 'mycompany.com/v1',
          kind: 'Nginx',
          metadata: { name },
          spec: { replicas, image },
        }),
        NS,
      );
    const signInTab = await newTab(browser, pageErrors);
    const pages: { name: string; page: Page; path: string; ready: (page: Page) => Promise<unknown> }[] = [
      {
        name: 'sign-in',
        page: signInTab,
        path: '/sign-in',
        ready: (p) => p.getByLabel('API token').waitFor(),
      },
      {
        name: 'list',
        page: editor,
        path: `/?namespace=${NS}`,
        ready: (p) =>
          waitFor('three Nginx rows', async () => (await p.getByTestId('nginx-row').count()) === 3),
      },
      {
        name: 'create',
        page: editor,
        path: `/nginxes/new?namespace=${NS}`,
        ready: (p) => p.getByLabel('Replicas', { exact: true }).waitFor(),
      },
      {
        name: 'detail',
        page: editor,
        path: `/nginxes/${NS}/${NAME}`,
        ready: async (p) => {
          await runningPods(p, 1);
          await p.getByTestId('event-row').first().waitFor();
        },
      },
      {
        name: 'audit',
        page: editor,
        path: `/audit?namespace=${NS}`,
        ready: async (p) => {
          await p.getByTestId('reconcile-row').first().waitFor();
          await p.getByTestId('reconcile-row').first().getByRole('button').click();
        },
      },
    ];
    const failures: string[] = [];
    const minor: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const)
      for (const { name, page, path, ready } of pages) {
        await page.emulateMedia({ colorScheme });
        await page.goto(`${cp.url}${path}`);
        await ready(page);
        await page.waitForTimeout(300); // let transitions settle before measuring contrast
        const violations = await axeViolations(page);
        const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        failures.push(...describeViolations(serious).map((line) => `${name} (${colorScheme}): ${line}`));
        minor.push(
          ...describeViolations(violations.filter((v) => !serious.includes(v))).map(
            (line) => `${name} (${colorScheme}): ${line}`,
          ),
        );
        await screenshot(page, `${name}-${colorScheme}`);
      }
    await signInTab.close();
    console.log(
      `axe: ${failures.length} serious or critical, ${minor.length} moderate or minor${minor.length ? `:\n${minor.join('\n')}` : ''}`,
    );
    expect(failures).toEqual([]);
  }, 150_000);

  it('deletes the Nginx after the name is typed, and it leaves the open list without a reload', async () => {
    await editor.emulateMedia({ colorScheme: 'light' });
    await editor.goto(`${cp.url}/nginxes/${NS}/${NAME}`);
    await runningPods(editor, 1);
    await editor.getByRole('button', { name: 'Delete…' }).click();
    const dialog = editor.getByRole('dialog', { name: `Delete Nginx ${NAME}?` });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete', exact: true });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${NAME} to confirm`).fill('wrong');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${NAME} to confirm`).fill(NAME);
    await screenshot(editor, 'delete-dialog-light');
    await confirm.click();

    await waitFor('the list page', () => new URL(editor.url()).pathname === '/');
    const row = listTab.locator(`[data-testid="nginx-row"][data-name="${NAME}"]`);
    await waitFor('the row to leave the open list', async () => (await row.count()) === 0, {
      timeoutMs: 30_000,
    });
    expect(await notReloaded(listTab)).toBe(true);
    expect((await cp.as('admin')(nginxPath(NAME))).status).toBe(404);
  }, 60_000);

  it('keeps the list virtualised and live with 1,000 Nginxes', async () => {
    await kubectl('create', 'namespace', BULK_NS);
    const items = Array.from({ length: 1000 }, (_, i) => ({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: `site-${String(i).padStart(4, '0')}` },
      spec: { replicas: 0 },
    }));
    // kubectl create from a file: kubectlApply does not read kubectl's output, which blocks on a thousand lines.
    const manifest = join(mkdtempSync(join(tmpdir(), 'ngx-bulk-')), 'nginxes.json');
    writeFileSync(manifest, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await kubectl('create', '-n', BULK_NS, '-f', manifest, '-o', 'name');

    const started = Date.now();
    await listTab.goto(`${cp.url}/?namespace=${BULK_NS}`);
    await waitFor(
      '1000 Nginxes listed',
      async () => (await listTab.getByTestId('nginx-count').innerText()).startsWith('1000 Nginxes'),
      {
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    );
    const shownAfterMs = Date.now() - started;
    const rendered = await listTab.getByTestId('nginx-row').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(80); // only the rows in view, and a few around them

    // Scrolling to the end renders the last rows (and still only a window of them).
    await listTab.getByTestId('nginx-table-scroll').evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await listTab.locator('[data-testid="nginx-row"][data-name="site-0999"]').waitFor({ timeout: 10_000 });
    expect(await listTab.getByTestId('nginx-row').count()).toBeLessThan(80);

    // Still live: a change made with kubectl shows in its row.
    await markDocument(listTab);
    await kubectl(
      'patch',
      'ngx',
      'site-0999',
      '-n',
      BULK_NS,
      '--type=merge',
      '-p',
      '{"spec":{"image":"nginx:1.27"}}',
    );
    const last = listTab.locator('[data-testid="nginx-row"][data-name="site-0999"]');
    await waitFor('the new image in the row', async () => (await last.innerText()).includes('nginx:1.27'));

    // Sorting 1,000 rows stays quick, and a new sort starts at the top.
    const sortStarted = Date.now();
    await listTab.getByRole('button', { name: 'Name', exact: true }).click();
    await waitFor(
      'site-0999 first, sorted by name descending',
      async () => (await listTab.getByTestId('nginx-row').first().getAttribute('data-name')) === 'site-0999',
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const sortMs = Date.now() - sortStarted;
    expect(
      await listTab.getByRole('columnheader', { name: 'Name', exact: true }).getAttribute('aria-sort'),
    ).toBe('descending');
    await listTab.getByLabel('Filter').fill('site-042');
    await waitFor('ten filtered rows', async () => (await listTab.getByTestId('nginx-row').count()) === 10);
    expect(await notReloaded(listTab)).toBe(true);

    // A thousand status writes are a thousand reconciles: the audit page pages through them.
    await waitFor(
      'at least 150 reconciles recorded',
      async () => {
        const response = await cp.as('admin')(
          `/controlplane/v1/audit/reconciles?namespace=${BULK_NS}&limit=150`,
        );
        return ((await response.json()) as { items: unknown[] }).items.length === 150;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    await listTab.goto(`${cp.url}/audit?namespace=${BULK_NS}`);
    await waitFor('the first page', async () => (await listTab.getByTestId('reconcile-row').count()) === 50);
    await listTab.getByRole('button', { name: 'Load more' }).click();
    await waitFor(
      'the second page',
      async () => (await listTab.getByTestId('reconcile-row').count()) === 100,
    );
    const ids = await listTab
      .getByTestId('reconcile-row')
      .evaluateAll((rows) => rows.map((row) => row.querySelector('button')?.getAttribute('aria-controls')));
    expect(new Set(ids).size).toBe(100); // no row twice
    console.log(
      `1000 Nginxes: listed ${shownAfterMs} ms after navigation, ${rendered} rows in the DOM, sorted in ${sortMs} ms`,
    );
  }, 180_000);

  it('signs out: the token is forgotten and the live connection closed', async () => {
    const before = await settledLiveConnections();
    await editor.getByRole('button', { name: 'Sign out' }).click();
    await waitFor('the sign-in page', () => new URL(editor.url()).pathname === '/sign-in');
    expect(
      await editor.evaluate(
        (key) =>
          (
            globalThis as unknown as { sessionStorage: { getItem: (k: string) => string | null } }
          ).sessionStorage.getItem(key),
        TOKEN_KEY,
      ),
    ).toBeNull();
    // At least one fewer: another tab reconnecting at the same moment must not hide the one that closed.
    await waitFor('one live connection fewer', async () => (await liveConnections()) <= before - 1);
    await editor.goto(`${cp.url}/`);
    await waitFor('the redirect to sign in', () => new URL(editor.url()).pathname === '/sign-in');
    expect(pageErrors).toEqual([]);
  });

  it('broke no Content-Security-Policy on any page while these tests ran', () => {
    expect(cspViolations).toEqual([]);
  });
});
