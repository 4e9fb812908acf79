// Rollouts in the web UI, in a real browser (Debian's Chromium against the built app with its controller on, on the
// local cluster), as issue 16 lists them: an image changed with kubectl rolls out on an open detail page (two
// revision groups at once, progress moving, then complete) without a reload; a rollback from the revision history
// (a stale one answered with a conflict and a reload) is audited as verb rollback by the signed-in name; Pause and
// Resume; the Service and the disruption budget; Edit YAML refuses to overwrite a concurrent kubectl scale and puts
// a dry run's 422 causes at their lines; an invalid config is shown at its line and cannot be saved; a viewer and
// an editor limited to another namespace see no write controls, and a forged rollback is refused; a canary's steps
// are shown, Promote moves it on and Abort (asked first) brings every pod back (issue 34); a blue-green shows which
// revision the active and the preview Service select, Promote switches the active one, Abort (asked first) ends
// the preview (issue 46). Every new view
// passes axe-core in the light and the dark scheme (screenshots in .data/screenshots/), breaking no CSP.
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { podTemplateOf, revisionOf, type Nginx, type NginxSpec } from '../libs/nginx-api/src/index.js';
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
  type ControlPlane,
  type TestRole,
} from './support/control-plane.js';
import { kubectl, kubectlApply } from './support/kubectl.js';
import {
  recordRollout,
  revisionGroup,
  rolloutRecord,
  rolloutState,
  waitForSettledRollout,
} from './support/rollout-page.js';
import { uniqueName, waitFor } from './support/wait.js';
import { runtimeClient } from './support/runtime.js';
import { createStableRoute } from './support/gateway-canary.js';

const NS = uniqueName('web-rollout');
/** A namespace the limited editor may not write in. */
const OTHER_NS = uniqueName('web-rollout-b');
const NAME = 'web';
const OTHER = 'elsewhere';
/** An Nginx with strategy Canary, in NS. */
const CANARY = 'canary';
/** An Nginx with strategy BlueGreen (promoted by hand), in NS. */
const BLUE_GREEN = 'bluegreen';
/** An Nginx whose canary shifts traffic through the HTTPRoute of the same name, in NS. */
const ROUTED = 'routed';
const TOKEN_KEY = 'ngx.token';
/** An editor limited to NS (from a token file, next to the three AUTH_TOKENS). */
const LIMITED = { name: 'lou-limited', token: 'limited-rollout-token-0123456789' };
/** Slow enough to watch: one pod more at a time, none fewer, each ready 2 s before it counts. */
const SPEC: NginxSpec = {
  replicas: 4,
  image: 'nginx:1.27',
  minReadySeconds: 2,
  strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
  service: { type: 'ClusterIP', port: 80 },
  disruptionBudget: { maxUnavailable: 1 },
};
const hashOf = (spec: NginxSpec) => revisionOf(podTemplateOf(spec));
const OLD = hashOf(SPEC);
const NEW = hashOf({ ...SPEC, image: 'nginx:1.28' });
/** Valid up to line 3, where a `}` closes nothing. */
const BAD_CONFIG = 'server { listen 80; }\n# a stray brace follows\n}\n';

let cp: ControlPlane;
let browser: TestBrowser;
/** The editor's tab, carried from one test to the next like a user's session. */
let editor: Page;
let listTab: Page | undefined;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

const detailUrl = (ns = NS, name = NAME) => `${cp.url}/nginxes/${ns}/${name}`;
const rollbackPath = (ns: string, name: string, revision: number) =>
  `/controlplane/v1/namespaces/${ns}/nginxes/${name}/revisions/${revision}/rollback`;

/** The Nginx as the API server has it now. */
async function nginxNow(ns = NS, name = NAME): Promise<Nginx> {
  return JSON.parse(await kubectl('get', 'nginx', name, '-n', ns, '-o', 'json')) as Nginx;
}

const signIn = (page: Page, token: string, name: string) => signInWith(page, cp.url, token, name);
const signInAs = (page: Page, role: TestRole) => signIn(page, TOKENS[role], TOKEN_NAMES[role]);

/** Opens the detail page and waits for its rollout panel. */
async function openDetail(page: Page, ns = NS, name = NAME): Promise<void> {
  await page.goto(detailUrl(ns, name));
  await page.getByTestId('rollout-panel').waitFor({ timeout: 30_000 });
}

/** Waits until the API server's status says `pods` pods of the spec's revision are all there and available. */
/** Sets the image of the Nginx `name` in NS with kubectl (a merge patch), as a user would. */
const setImageOf = (name: string, image: string) =>
  kubectl('patch', 'nginx', name, '-n', NS, '--type', 'merge', '-p', JSON.stringify({ spec: { image } }));

const rolledOut = (pods: number, ns = NS, name = NAME) =>
  waitFor(
    `${ns}/${name} rolled out to ${pods} pods`,
    async () => {
      const { metadata, status } = await nginxNow(ns, name);
      return (
        status?.observedGeneration === metadata.generation &&
        status?.updatedReplicas === pods &&
        status?.availableReplicas === pods &&
        status?.replicas === pods
      );
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );

/** The write controls issue 16 adds (and the ones before it): none may show for someone who may not write. */
const WRITE_BUTTONS = [
  'Pause rollout',
  'Resume rollout',
  'Roll back to this',
  'Edit YAML',
  'Edit config',
  'Save config',
  'Scale',
  'Increase replicas',
  'Decrease replicas',
  'Delete…',
  'Promote',
  'Promote fully',
  'Abort',
];
async function writeControls(page: Page): Promise<string[]> {
  const shown: string[] = [];
  for (const name of WRITE_BUTTONS)
    if ((await page.getByRole('button', { name, exact: true }).count()) > 0) shown.push(name);
  for (const testId of ['scale-input', 'scale-form', 'image-input'])
    if ((await page.getByTestId(testId).count()) > 0) shown.push(testId);
  return shown;
}

/** Chooses revision `revision` in a select of revision numbers (by value, or by an option text naming it). */
async function chooseRevision(select: Locator, revision: number): Promise<void> {
  const options = await select
    .locator('option')
    .evaluateAll((all) =>
      all.map((o) => ({ value: o.getAttribute('value') ?? '', text: o.textContent ?? '' })),
    );
  const index = options.findIndex(
    (o) =>
      o.value === String(revision) ||
      new RegExp(`(^|\\D)${revision}(\\D|$)`).test(o.text.trim().split(/\s/)[0]!),
  );
  if (index < 0) throw new Error(`no revision ${revision} among ${JSON.stringify(options)}`);
  await select.selectOption({ index });
}

/** The revision history's row of one pod template hash. */
const revisionRow = (page: Page, hash: string) =>
  page.getByTestId('revision-history').locator(`[data-testid="revision-row"][data-hash="${hash}"]`);

/** Clicks the rollback conflict's Reload, and waits until the revision history has been read again. */
async function reloadAfterConflict(page: Page): Promise<void> {
  const refetched = page.waitForResponse(
    (response) =>
      response.request().method() === 'GET' && new URL(response.url()).pathname.endsWith('/revisions'),
  );
  await page.getByTestId('rollback-conflict').getByRole('button', { name: 'Reload', exact: true }).click();
  await refetched;
  await waitFor('the conflict to go and the history to refresh', async () => {
    const history = page.getByTestId('revision-history');
    return (
      (await page.getByTestId('rollback-conflict').count()) === 0 &&
      !(await history.innerText()).includes('Refreshing')
    );
  });
}

/** The open dialog that holds a button named exactly `button`. */
const dialogWith = (page: Page, button: string) =>
  page.getByRole('dialog').filter({ has: page.getByRole('button', { name: button, exact: true }) });

/** The Edit YAML dialog. */
const yamlDialog = (page: Page) =>
  page.getByRole('dialog').filter({ has: page.getByRole('heading', { name: 'Edit YAML' }) });

/** `text` with spec.<field> set to `value`, and the 1-based line it is on. */
function withSpecField(text: string, field: string, value: string): { text: string; line: number } {
  const lines = text.split('\n');
  const spec = lines.findIndex((line) => /^spec:\s*$/.test(line));
  const at = lines.findIndex((line, i) => i > spec && new RegExp(`^  ${field}:`).test(line));
  const leftSpec = lines.findIndex((line, i) => i > spec && /^\S/.test(line));
  if (spec < 0 || at < 0 || (leftSpec >= 0 && at > leftSpec))
    throw new Error(`no spec.${field} in:\n${text}`);
  lines[at] = `  ${field}: ${value}`;
  return { text: lines.join('\n'), line: at + 1 };
}

/** Installs, in the list tab, a record of whether NAME's row ever showed as mid-rollout. */
const recordListMarker = (page: Page) =>
  page.evaluate(`(() => {
    window.__rollingOut = false;
    const check = () => {
      for (const row of document.querySelectorAll('[data-testid="nginx-row"][data-rollout="true"]'))
        if (row.getAttribute('data-name') === ${JSON.stringify(NAME)} && row.textContent.includes('Rolling out'))
          window.__rollingOut = true;
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    check();
  })()`);

beforeAll(async () => {
  await kubectl('create', 'namespace', NS);
  await kubectl('create', 'namespace', OTHER_NS);
  cp = await startWebControlPlane([NS, OTHER_NS], LIMITED);
  // Created through the API as the editor, so that revision 1 names who introduced it.
  const created = await cp.as('editor')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: NAME },
      spec: SPEC,
    }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  await kubectlApply(
    JSON.stringify({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: OTHER },
      spec: { replicas: 1, image: 'nginx:1.27' },
    }),
    OTHER_NS,
  );
  browser = await launchBrowser();
  await reportCspViolations(browser, cspViolations);
  editor = await newTab(browser, pageErrors);
  await rolledOut(4);
}, 180_000);

afterEach(async (context) => {
  if (context.task.result?.state !== 'fail') return;
  const slug = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
  for (const [tab, page] of [
    ['editor', editor],
    ['list', listTab],
  ] as const)
    if (page && !page.isClosed()) await screenshot(page, `failed-rollout-${slug}-${tab}`).catch(() => {});
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
  await kubectl('delete', 'namespace', NS, OTHER_NS, '--wait=false', '--ignore-not-found').catch(() => {});
});

describe('rollouts in the web UI, in a real browser', () => {
  it('shows an image change made with kubectl rolling out, two revisions at once, until complete, live', async () => {
    await signInAs(editor, 'editor');
    listTab = await newTab(browser, pageErrors);
    await signInAs(listTab, 'editor');
    await listTab.goto(`${cp.url}/?namespace=${NS}`);
    await listTab.locator(`[data-testid="nginx-row"][data-name="${NAME}"]`).waitFor();
    expect(await listTab.getByRole('columnheader', { name: 'Up-to-date' }).count()).toBe(1);
    await recordListMarker(listTab);

    await openDetail(editor);
    await waitForSettledRollout(editor, { hash: OLD, pods: 4 });
    expect(await revisionGroup(editor, OLD).getAttribute('data-current')).toBe('true');
    await markDocument(editor);
    await recordRollout(editor);

    await setImageOf(NAME, 'nginx:1.28');
    await waitFor(
      'two revision groups with pods at the same time',
      async () => (await rolloutRecord(editor)).maxGroupsWithPods >= 2,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await waitForSettledRollout(editor, { hash: NEW, pods: 4, timeoutMs: 120_000 });

    const record = await rolloutRecord(editor);
    expect(record.states.map((s) => s.state)).toContain('progressing');
    expect(record.states.at(-1)?.state).toBe('complete');
    expect(await rolloutState(editor).innerText()).toContain('Complete');
    // data-updated fell to the new revision's few pods and climbed step by step to all four.
    const values = record.updated.map((u) => u.value);
    const climb = values.slice(values.lastIndexOf(Math.min(...values)));
    expect(climb, values.join(' → ')).toEqual([...climb].sort((a, b) => a - b));
    expect(new Set(climb).size, values.join(' → ')).toBeGreaterThanOrEqual(3);
    expect(climb.at(-1)).toBe(4);
    const progress = editor.getByTestId('rollout-progress');
    expect(await progress.getAttribute('data-available')).toBe('4');
    expect(await progress.getAttribute('data-desired')).toBe('4');
    expect(await revisionGroup(editor, NEW).getAttribute('data-current')).toBe('true');
    const podRevisions = await revisionGroup(editor, NEW)
      .getByTestId('pod-row')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-revision')));
    expect(podRevisions).toEqual([NEW, NEW, NEW, NEW]);
    expect(await notReloaded(editor)).toBe(true);

    // The open list marked it while it rolled, and shows it up to date now.
    expect(await listTab.evaluate('window.__rollingOut')).toBe(true);
    await waitFor('the list to show the rollout done', async () => {
      const row = listTab!.locator(`[data-testid="nginx-row"][data-name="${NAME}"]`);
      return (await row.getAttribute('data-rollout')) !== 'true';
    });
    await screenshot(editor, 'rollout-complete-light');
  }, 240_000);

  it("shows what happens in the Timeline, live, and a pod's why? chain back to who asked for it", async () => {
    await openDetail(editor);
    const timeline = editor.getByTestId('timeline');
    await timeline.waitFor({ timeout: 30_000 });
    await markDocument(editor);
    // The rollout just made is there: its new pods, in one burst row or more, each linked to a reconcile.
    await waitFor('the rollout in the timeline', async () =>
      (await editor.locator('[data-testid="timeline-row"][data-kind="pod"]').allInnerTexts()).some((text) =>
        /created/.test(text),
      ),
    );
    const before = new Set(
      await editor
        .getByTestId('pod-row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-pod'))),
    );
    const scaled = await cp.as('editor')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes/${NAME}/scale`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { replicas: 5 } }),
    });
    expect(scaled.status).toBe(200);
    const added = await waitFor('the new pod in the pods table', async () => {
      const pods = await editor
        .getByTestId('pod-row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-pod')));
      return pods.find((pod) => pod && !before.has(pod)) ?? undefined;
    });
    // Live: the scale and the new pod reach the open timeline without a reload.
    await waitFor('the scale in the timeline', async () => {
      const texts = await editor.locator('[data-testid="timeline-row"][data-kind="change"]').allInnerTexts();
      return texts.some((text) => text.includes(`${TOKEN_NAMES.editor} (editor): patch /scale`));
    });
    await waitFor('the new pod in the timeline', async () =>
      (await editor.locator('[data-testid="timeline-row"][data-kind="pod"]').allInnerTexts()).some((text) =>
        text.includes(added),
      ),
    );
    expect(await notReloaded(editor)).toBe(true);
    // Causes are said in words, linked: the reconcile that made the pod, the scale that asked for it.
    await waitFor('causes in words', async () => {
      const causes = await editor.getByTestId('timeline-causes').allInnerTexts();
      return (
        causes.some((text) => text.includes("the controller's reconcile (create")) &&
        causes.some(
          (text) => text.includes(`${TOKEN_NAMES.editor} scaled`) && text.includes('→ 5 via controlplane'),
        )
      );
    });

    // The kind filter keeps only what it names.
    await editor.getByTestId('timeline-filters').getByLabel('Changes').check();
    const kinds = await editor
      .getByTestId('timeline-row')
      .evaluateAll((rows) => [...new Set(rows.map((row) => row.getAttribute('data-kind')))]);
    expect(kinds).toEqual(['change']);
    await editor.getByTestId('timeline-filters').getByLabel('Changes').uncheck();

    // "why?" on the new pod: created by a reconcile, for the scale the editor made.
    await editor.getByRole('button', { name: `Why ${added}?` }).click();
    const dialog = editor.getByTestId('pod-why-dialog');
    await dialog.getByTestId('pod-why-chain').waitFor();
    // The chain reaches the change once the reconcile that made the pod is recorded (within 100 ms): ask again.
    await waitFor('the chain to reach the change', async () => {
      if ((await dialog.getByTestId('pod-why-step').last().getAttribute('data-kind')) === 'change')
        return true;
      await dialog.getByRole('button', { name: 'Close' }).click();
      await editor.getByRole('button', { name: `Why ${added}?` }).click();
      await dialog.getByTestId('pod-why-chain').waitFor();
      return false;
    });
    expect(
      await dialog
        .getByTestId('pod-why-step')
        .evaluateAll((steps) => steps.map((s) => s.getAttribute('data-kind'))),
    ).toEqual(['pod', 'reconcile', 'change']);
    expect(await dialog.getByTestId('pod-why-actor').innerText()).toContain(TOKEN_NAMES.editor);
    await screenshot(editor, 'pod-why-light');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await cp.as('editor')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes/${NAME}/scale`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { replicas: 4 } }),
    });
    await waitForSettledRollout(editor, { hash: NEW, pods: 4 });
  }, 120_000);

  it('compares two revisions and rolls back from the history: a stale confirmation conflicts, then it is audited', async () => {
    await waitFor(
      'two revisions in the history',
      async () => (await editor.getByTestId('revision-row').count()) === 2,
    );
    const old = revisionRow(editor, OLD);
    const current = revisionRow(editor, NEW);
    expect(await old.getAttribute('data-revision')).toBe('1');
    expect(await old.getAttribute('data-current')).toBe('false');
    expect(await current.getAttribute('data-revision')).toBe('2');
    expect(await current.getAttribute('data-current')).toBe('true');
    expect(await old.getByTestId('revision-actor').innerText()).toContain(TOKEN_NAMES.editor);
    expect(await current.getByRole('button', { name: 'Roll back to this' }).count()).toBe(0);

    await chooseRevision(editor.getByLabel('Compare from'), 1);
    await chooseRevision(editor.getByLabel('Compare to'), 2);
    const diff = editor.getByTestId('revision-diff');
    await waitFor('the image change in the revision diff', async () => {
      const text = await diff.innerText();
      return text.includes('nginx:1.27') && text.includes('nginx:1.28');
    });
    await screenshot(editor, 'revision-diff-light');

    // Someone changes the Nginx while the confirmation is open: nothing is rolled back, a reload is offered.
    await old.getByRole('button', { name: 'Roll back to this' }).click();
    const confirm = dialogWith(editor, 'Roll back');
    await confirm.waitFor();
    expect(await confirm.innerText()).toContain('nginx:1.27');
    await kubectl('annotate', 'nginx', NAME, '-n', NS, `example.com/touched=${Date.now()}`, '--overwrite');
    await confirm.getByRole('button', { name: 'Roll back', exact: true }).click();
    const conflict = editor.getByTestId('rollback-conflict');
    await conflict.waitFor({ timeout: 15_000 });
    expect((await nginxNow()).spec.image).toBe('nginx:1.28');

    // The controller's own status writes move the resourceVersion too: another reload and try may be needed.
    for (let attempt = 1; (await nginxNow()).spec.image !== 'nginx:1.27'; attempt++) {
      expect(attempt, 'rollback attempts').toBeLessThan(4);
      if (await conflict.isVisible()) await reloadAfterConflict(editor);
      if (!(await confirm.isVisible())) await old.getByRole('button', { name: 'Roll back to this' }).click();
      await confirm.getByRole('button', { name: 'Roll back', exact: true }).click();
      await waitFor(
        'the rollback or a conflict',
        async () => (await nginxNow()).spec.image === 'nginx:1.27' || (await conflict.isVisible()),
      );
    }
    const changes = (await (
      await cp.as('admin')(`/controlplane/v1/audit/changes?namespace=${NS}&name=${NAME}`)
    ).json()) as { items: { verb: string; actor: string; code: number }[] };
    expect(changes.items.filter((c) => c.verb === 'rollback' && c.code < 300)).toEqual([
      expect.objectContaining({ verb: 'rollback', actor: TOKEN_NAMES.editor }),
    ]);

    await waitForSettledRollout(editor, { hash: OLD, pods: 4, timeoutMs: 120_000 });
    // The old template is the newest revision now.
    await waitFor('the rolled-back revision to be current', async () => {
      const row = revisionRow(editor, OLD);
      return (
        (await row.getAttribute('data-current')) === 'true' &&
        (await row.getAttribute('data-revision')) === '3'
      );
    });
    expect(await notReloaded(editor)).toBe(true);
  }, 240_000);

  it('pauses a rollout: an image change waits, paused, until Resume rolls it out', async () => {
    await editor.getByRole('button', { name: 'Pause rollout', exact: true }).click();
    await waitFor('spec.paused', async () => (await nginxNow()).spec.paused === true);
    await kubectl(
      'patch',
      'nginx',
      NAME,
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      '{"spec":{"image":"nginx:1.28"}}',
    );
    await waitFor(
      'the paused state',
      async () => (await rolloutState(editor).getAttribute('data-state')) === 'paused',
    );
    expect(await rolloutState(editor).innerText()).toContain('Paused');
    expect(await revisionGroup(editor, NEW).getByTestId('pod-row').count()).toBe(0);

    await editor.getByRole('button', { name: 'Resume rollout', exact: true }).click();
    await waitFor('spec.paused off', async () => !(await nginxNow()).spec.paused);
    await waitForSettledRollout(editor, { hash: NEW, pods: 4, timeoutMs: 120_000 });
    expect(await editor.getByRole('button', { name: 'Pause rollout', exact: true }).count()).toBe(1);
  }, 180_000);

  it("shows the Service (cluster IP, ports, ready endpoints) and the disruption budget's allowed disruptions", async () => {
    const { status } = await nginxNow();
    expect(status?.service?.name).toBeTruthy();
    const service = JSON.parse(
      await kubectl('get', 'service', status!.service!.name!, '-n', NS, '-o', 'json'),
    ) as {
      spec: { type: string; clusterIP: string; ports: { port: number }[] };
    };
    const panel = editor.getByTestId('service-panel');
    await waitFor(
      'the cluster IP',
      async () =>
        (await panel.getByTestId('service-cluster-ip').innerText()).trim() === service.spec.clusterIP,
    );
    const text = await panel.innerText();
    expect(text).toContain(service.spec.type);
    expect(text).toContain(String(service.spec.ports[0]!.port));
    await waitFor(
      '4 ready endpoints',
      async () => /\b4\b/.test(await panel.getByTestId('service-ready-endpoints').innerText()),
      { timeoutMs: 30_000, intervalMs: 250 },
    );

    const allowed = editor.getByTestId('disruption-budget').getByTestId('disruptions-allowed');
    await waitFor(
      'the allowed disruptions as the PodDisruptionBudget has them',
      async () => {
        const budgets = JSON.parse(
          await kubectl('get', 'pdb', '-n', NS, '-l', `mycompany.com/nginx=${NAME}`, '-o', 'json'),
        ) as { items: { status?: { disruptionsAllowed?: number } }[] };
        const now = budgets.items[0]?.status?.disruptionsAllowed;
        return now === 1 && (await allowed.innerText()).trim().startsWith(String(now));
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  }, 60_000);

  it('Edit YAML: a concurrent kubectl scale is a conflict that overwrites nothing; a 422 cause lands on its line', async () => {
    await editor.getByRole('button', { name: 'Edit YAML', exact: true }).click();
    const dialog = yamlDialog(editor);
    await dialog.waitFor();
    const manifest = dialog.getByLabel('Manifest', { exact: true });
    const read = await manifest.inputValue();
    expect(read).toMatch(/^ {2}replicas: 4$/m);
    expect(read).toMatch(/^ {2}image: nginx:1\.28$/m);

    await kubectl('scale', 'nginx', NAME, '-n', NS, '--replicas=3');
    // The page heard of it; the editor keeps what was read.
    await waitFor(
      'desired 3 on the page',
      async () => (await editor.getByTestId('rollout-progress').getAttribute('data-desired')) === '3',
    );
    await manifest.fill(withSpecField(read, 'image', 'nginx:1.26').text);
    await dialog.getByRole('button', { name: 'Review changes', exact: true }).click();
    const conflict = editor.getByTestId('yaml-conflict');
    const reviewed = editor.getByTestId('yaml-diff');
    await waitFor(
      'the dry run or the conflict',
      async () => (await conflict.count()) + (await reviewed.count()) > 0,
    );
    if ((await conflict.count()) === 0)
      await dialog.getByRole('button', { name: 'Apply', exact: true }).click();
    await conflict.waitFor({ timeout: 15_000 });
    expect(await conflict.innerText()).toMatch(/replicas/);
    const after = await nginxNow();
    expect(after.spec.replicas).toBe(3);
    expect(after.spec.image).toBe('nginx:1.28');

    await editor.getByRole('button', { name: 'Load latest', exact: true }).click();
    await waitFor('the latest object in the editor', async () =>
      /^ {2}replicas: 3$/m.test(await manifest.inputValue()),
    );
    const invalid = withSpecField(await manifest.inputValue(), 'replicas', '-1');
    await manifest.fill(invalid.text);
    await dialog.getByRole('button', { name: 'Review changes', exact: true }).click();
    const cause = editor.locator(`[data-testid="yaml-cause"][data-line="${invalid.line}"]`);
    await cause.first().waitFor({ timeout: 15_000 });
    expect(await cause.first().innerText()).toMatch(/replicas|greater than or equal to 0/);
    expect((await nginxNow()).spec.replicas).toBe(3);
    await screenshot(editor, 'edit-yaml-cause-light');

    await editor.keyboard.press('Escape');
    if (await dialog.isVisible())
      await dialog
        .getByRole('button', { name: /^(Cancel|Close)$/ })
        .first()
        .click();
    await waitFor('the dialog to close', async () => !(await dialog.isVisible()));
  }, 90_000);

  it('shows an invalid config at its line before saving, and cannot save it', async () => {
    const panel = editor.getByTestId('config-panel');
    expect(await panel.innerText()).toMatch(/default server/i);
    await editor.getByRole('button', { name: 'Edit config', exact: true }).click();
    await typeConfig(editor, BAD_CONFIG);
    const problem = editor.locator('[data-testid="config-problem"][data-line="3"]');
    await problem.first().waitFor({ timeout: 15_000 });
    expect(await problem.first().innerText()).toContain('unexpected "}"');
    expect(await editor.getByRole('button', { name: 'Save config', exact: true }).isDisabled()).toBe(true);
    await screenshot(editor, 'config-problem-light');
    expect((await nginxNow()).spec.config).toBeUndefined();
  }, 60_000);

  it('shows a viewer, and an editor limited to another namespace, no write controls; a forged rollback is refused', async () => {
    const viewer = await newTab(browser, pageErrors);
    await signInAs(viewer, 'viewer');
    await openDetail(viewer);
    await viewer.getByTestId('revision-row').first().waitFor();
    await viewer.getByTestId('config-panel').waitFor();
    expect(await writeControls(viewer)).toEqual([]);
    const notes = await viewer.getByTestId('read-only-note').allInnerTexts();
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.join('\n')).toContain(TOKEN_NAMES.viewer);
    await viewer.close();

    const limited = await newTab(browser, pageErrors);
    await signIn(limited, LIMITED.token, LIMITED.name);
    // In its own namespace it writes …
    await openDetail(limited);
    await limited.getByRole('button', { name: 'Edit YAML', exact: true }).waitFor();
    // … elsewhere it is told why it may not.
    await limited.goto(detailUrl(OTHER_NS, OTHER));
    await waitFor('an explanation naming the other namespace', async () => {
      const texts = [
        ...(await limited.getByTestId('read-only-note').allInnerTexts()),
        ...(await limited.getByTestId('error-state').allInnerTexts()),
      ];
      return texts.some((text) => text.includes(OTHER_NS));
    });
    expect(await writeControls(limited)).toEqual([]);

    const refused = await limited.evaluate(
      async ({ path, key }) => {
        const g = globalThis as unknown as { sessionStorage: { getItem: (k: string) => string } };
        const response = await fetch(path, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${g.sessionStorage.getItem(key)}`,
            'Content-Type': 'application/json',
          },
          body: '{}',
        });
        return { code: response.status, body: (await response.json()) as { kind: string; reason: string } };
      },
      { path: rollbackPath(OTHER_NS, OTHER, 1), key: TOKEN_KEY },
    );
    expect(refused.code).toBe(403);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect((await nginxNow(OTHER_NS, OTHER)).spec.image).toBe('nginx:1.27');
    await limited.close();
  }, 90_000);

  it('walks a canary from the rollout panel: its steps shown, Promote moves it on, Abort (asked first) brings it back', async () => {
    const spec: NginxSpec = {
      replicas: 4,
      image: 'nginx:1.27',
      strategy: { type: 'Canary', canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
    };
    await kubectlApply(
      JSON.stringify({ apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name: CANARY }, spec }),
      NS,
    );
    await rolledOut(4, NS, CANARY);
    await openDetail(editor, NS, CANARY);
    const steps = editor.getByTestId('canary-steps');
    const phaseIs = (phase: string) =>
      waitFor(
        `the canary ${phase} in the panel`,
        async () => (await steps.getAttribute('data-phase')) === phase,
        {
          timeoutMs: 120_000,
        },
      );
    const setImage = (image: string) =>
      kubectl(
        'patch',
        'nginx',
        CANARY,
        '-n',
        NS,
        '--type',
        'merge',
        '-p',
        JSON.stringify({ spec: { image } }),
      );

    await setImage('nginx:1.28');
    await phaseIs('Paused');
    const states = await steps
      .getByTestId('canary-step')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-state')));
    expect(states).toEqual(['done', 'current']);
    expect(await steps.innerText()).toContain('Pause until promoted');
    await steps.getByRole('button', { name: 'Promote', exact: true }).click();
    await phaseIs('Promoted');
    await rolledOut(4, NS, CANARY);
    expect((await nginxNow(NS, CANARY)).status?.canary?.phase).toBe('Promoted');

    await setImage('nginx:1.29');
    await phaseIs('Paused');
    await steps.getByRole('button', { name: 'Abort', exact: true }).click();
    const dialog = dialogWith(editor, 'Abort canary');
    await dialog.getByRole('button', { name: 'Abort canary', exact: true }).click();
    await phaseIs('Aborted');
    await waitFor(
      'the aborted rollout state',
      async () => (await rolloutState(editor).getAttribute('data-state')) === 'aborted',
    );
    const stable = hashOf({ ...spec, image: 'nginx:1.28' });
    await waitFor(
      'every pod back on the stable revision',
      async () => {
        const pods = JSON.parse(
          await kubectl('get', 'pods', '-n', NS, '-l', `mycompany.com/nginx=${CANARY}`, '-o', 'json'),
        ) as { items: { metadata: { labels: Record<string, string>; deletionTimestamp?: string } }[] };
        const live = pods.items.filter((p) => !p.metadata.deletionTimestamp);
        return live.length === 4 && live.every((p) => p.metadata.labels['mycompany.com/revision'] === stable);
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect((await nginxNow(NS, CANARY)).spec.image).toBe('nginx:1.29'); // the spec keeps the new template
    expect(await steps.getByRole('button', { name: 'Promote', exact: true }).isDisabled()).toBe(true);
  }, 240_000);

  it('walks a blue-green from the rollout panel: preview beside active, Promote switches, Abort (asked first) ends the preview', async () => {
    const spec = {
      replicas: 2,
      image: 'nginx:1.27',
      strategy: { type: 'BlueGreen', blueGreen: { autoPromotionEnabled: false, scaleDownDelaySeconds: 0 } },
    } as NginxSpec;
    await kubectlApply(
      JSON.stringify({ apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name: BLUE_GREEN }, spec }),
      NS,
    );
    await rolledOut(2, NS, BLUE_GREEN);
    await openDetail(editor, NS, BLUE_GREEN);
    const blue = hashOf(spec);
    const green = hashOf({ ...spec, image: 'nginx:1.28' });
    const panel = editor.getByTestId('bluegreen-panel');
    const selects = (which: 'active' | 'preview') =>
      panel.getByTestId(`bluegreen-${which}`).getAttribute('data-revision');
    const shown = (what: string, check: () => Promise<boolean>) =>
      waitFor(what, check, { timeoutMs: 120_000, intervalMs: 300 });
    /** The revision the Service `service` selects, as kube-apiserver has it. */
    const serviceSelects = async (service: string) =>
      (
        JSON.parse(await kubectl('get', 'service', service, '-n', NS, '-o', 'json')) as {
          spec: { selector: Record<string, string> };
        }
      ).spec.selector['mycompany.com/revision'];

    await setImageOf(BLUE_GREEN, 'nginx:1.28');
    await shown(
      'the preview paused, waiting for a promote',
      async () => (await panel.getAttribute('data-phase').catch(() => null)) === 'Paused',
    );
    expect(await panel.getByRole('heading').innerText()).toBe(`Blue-green of ${green}`);
    expect(await selects('active')).toBe(blue);
    expect(await selects('preview')).toBe(green);
    expect(await panel.getByTestId('bluegreen-active').innerText()).toBe(
      `Active Service ${BLUE_GREEN}-active selects ${blue}`,
    );
    expect(await panel.getByTestId('bluegreen-preview').innerText()).toContain(
      `Preview Service ${BLUE_GREEN}-preview selects ${green}`,
    );
    expect(await serviceSelects(`${BLUE_GREEN}-active`)).toBe(blue);

    await panel.getByRole('button', { name: 'Promote', exact: true }).click();
    await shown(
      'the active Service on the new revision in the panel',
      async () => (await selects('active')) === green,
    );
    expect(await serviceSelects(`${BLUE_GREEN}-active`)).toBe(green);
    await shown(
      'the blue-green promoted',
      async () => (await panel.getAttribute('data-phase').catch(() => null)) === 'Promoted',
    );
    expect(await selects('preview')).toBe('');
    expect(await panel.getByRole('button', { name: 'Promote', exact: true }).isDisabled()).toBe(true);
    await rolledOut(2, NS, BLUE_GREEN);

    const third = hashOf({ ...spec, image: 'nginx:1.29' });
    await setImageOf(BLUE_GREEN, 'nginx:1.29');
    await shown(
      'the next preview paused',
      async () =>
        (await selects('preview')) === third && (await panel.getAttribute('data-phase')) === 'Paused',
    );
    await panel.getByRole('button', { name: 'Abort', exact: true }).click();
    const dialog = dialogWith(editor, 'Abort rollout');
    expect(await dialog.innerText()).toContain(`The active Service ${BLUE_GREEN}-active stays on ${green}`);
    await dialog.getByRole('button', { name: 'Abort rollout', exact: true }).click();
    await shown('the blue-green aborted', async () => (await panel.getAttribute('data-phase')) === 'Aborted');
    await shown(
      'the aborted rollout state',
      async () => (await rolloutState(editor).getAttribute('data-state')) === 'bluegreen-aborted',
    );
    expect(await panel.getByTestId('bluegreen-message').innerText()).toBe('Aborted by request.');
    expect(await selects('active')).toBe(green);
    expect(await serviceSelects(`${BLUE_GREEN}-active`)).toBe(green);
    await waitFor(
      'the preview pods gone, the active revision whole',
      async () => {
        const pods = JSON.parse(
          await kubectl('get', 'pods', '-n', NS, '-l', `mycompany.com/nginx=${BLUE_GREEN}`, '-o', 'json'),
        ) as { items: { metadata: { labels: Record<string, string>; deletionTimestamp?: string } }[] };
        const live = pods.items.filter((p) => !p.metadata.deletionTimestamp);
        return live.length === 2 && live.every((p) => p.metadata.labels['mycompany.com/revision'] === green);
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(await panel.getByRole('button', { name: 'Abort', exact: true }).isDisabled()).toBe(true);
  }, 240_000);

  it("shows a traffic-routed canary's weight, its header route and its HTTPRoute as the Gateways report it", async () => {
    const client = runtimeClient();
    try {
      await createStableRoute(client, NS, ROUTED);
      const spec = {
        replicas: 4,
        image: 'nginx:1.27',
        strategy: {
          type: 'Canary',
          canary: {
            trafficRouting: { gatewayAPI: { httpRoute: ROUTED } },
            steps: [
              { setWeight: 20 },
              {
                setHeaderRoute: {
                  name: 'beta',
                  match: [{ headerName: 'x-beta', headerValue: { exact: 'yes' } }],
                },
              },
              { pause: {} },
            ],
          },
        },
      } as NginxSpec;
      await kubectlApply(
        JSON.stringify({ apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name: ROUTED }, spec }),
        NS,
      );
      await rolledOut(4, NS, ROUTED);
      await openDetail(editor, NS, ROUTED);
      await setImageOf(ROUTED, 'nginx:1.28');
      const traffic = editor.getByTestId('canary-traffic');
      await waitFor(
        'the route at 20 in the panel',
        async () => (await traffic.getAttribute('data-weight')) === '20',
        {
          timeoutMs: 120_000,
        },
      );
      await editor.getByTestId('canary-header-route').waitFor({ timeout: 30_000 });
      const text = await traffic.innerText();
      expect(text).toContain(`HTTPRoute ${NS}/${ROUTED}: 80% stable, 20% canary`);
      expect(text).toContain('Accepted Unknown'); // no Gateway implementation here: no parent reports
      expect(text).toContain('Header route beta: requests with x-beta = yes go to the canary only.');
      const steps = await editor.getByTestId('canary-step').allInnerTexts();
      expect(steps.map((step) => step.replace(/^\w+\s+/, ''))).toEqual([
        'Set weight 20%',
        'Header route beta: x-beta = yes',
        'Pause until promoted',
      ]);
    } finally {
      client.close();
    }
  }, 240_000);

  it('passes axe-core on the rollout views in the light and the dark scheme (screenshots of each)', async () => {
    const views: { name: string; path: string; ready: (page: Page) => Promise<unknown> }[] = [
      { name: 'rollout-detail', path: `/nginxes/${NS}/${NAME}`, ready: showRevisionDiff },
      { name: 'rollout-edit-yaml', path: `/nginxes/${NS}/${NAME}`, ready: showYamlReview },
      { name: 'rollout-config-editor', path: `/nginxes/${NS}/${NAME}`, ready: showConfigProblem },
      { name: 'rollout-create-sections', path: `/nginxes/new?namespace=${NS}`, ready: showCreateSections },
      {
        name: 'rollout-create-bluegreen',
        path: `/nginxes/new?namespace=${NS}`,
        ready: async (page) => {
          await showCreateSections(page);
          await page.getByLabel('Strategy', { exact: true }).selectOption('BlueGreen');
          await page.getByLabel('Promote automatically', { exact: true }).waitFor();
        },
      },
      { name: 'timeline-pod-why', path: `/nginxes/${NS}/${NAME}`, ready: showPodWhy },
      {
        name: 'rollout-canary',
        path: `/nginxes/${NS}/${CANARY}`,
        ready: (page) => page.getByTestId('canary-steps').waitFor({ timeout: 30_000 }),
      },
      {
        name: 'rollout-bluegreen',
        path: `/nginxes/${NS}/${BLUE_GREEN}`,
        ready: (page) => page.getByTestId('bluegreen-panel').waitFor({ timeout: 30_000 }),
      },
      {
        name: 'rollout-canary-traffic',
        path: `/nginxes/${NS}/${ROUTED}`,
        ready: (page) => page.getByTestId('canary-traffic').waitFor({ timeout: 30_000 }),
      },
    ];
    const failures: string[] = [];
    const minor: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const)
      for (const { name, path, ready } of views) {
        await editor.emulateMedia({ colorScheme });
        await editor.goto(`${cp.url}${path}`);
        await ready(editor);
        await editor.waitForTimeout(300); // let transitions settle before measuring contrast
        const violations = await axeViolations(editor);
        const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        failures.push(...describeViolations(serious).map((line) => `${name} (${colorScheme}): ${line}`));
        minor.push(
          ...describeViolations(violations.filter((v) => !serious.includes(v))).map(
            (line) => `${name} (${colorScheme}): ${line}`,
          ),
        );
        await screenshot(editor, `${name}-${colorScheme}`);
      }
    await editor.emulateMedia({ colorScheme: 'light' });
    console.log(
      `axe: ${failures.length} serious or critical, ${minor.length} moderate or minor${minor.length ? `:\n${minor.join('\n')}` : ''}`,
    );
    expect(failures).toEqual([]);
  }, 300_000);

  it('broke no Content-Security-Policy and threw no page error while these tests ran', () => {
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

/** Replaces the config editor's text (CodeMirror: its content element) with `text`, as pasted. */
async function typeConfig(page: Page, text: string): Promise<void> {
  const content = page.locator('[aria-label="nginx config"]');
  await content.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  await waitFor('the config in the editor', async () =>
    (await content.innerText()).includes('# a stray brace follows'),
  );
}

/** The detail page with its rollout panel, history and a diff of the two newest revisions. */
/** The detail page with its timeline filled and a pod's "why?" open. */
async function showPodWhy(page: Page): Promise<void> {
  await page.getByTestId('timeline-row').first().waitFor({ timeout: 30_000 });
  const pod = await page.getByTestId('pod-row').first().getAttribute('data-pod');
  await page.getByRole('button', { name: `Why ${pod}?` }).click();
  await page.getByTestId('pod-why-chain').waitFor();
}

async function showRevisionDiff(page: Page): Promise<void> {
  await page.getByTestId('rollout-panel').waitFor({ timeout: 30_000 });
  await waitForSettledRollout(page, { hash: NEW, pods: 3 });
  await page.getByTestId('service-panel').waitFor();
  await page.getByTestId('disruption-budget').waitFor();
  // The history loads on its own: wait for both revisions it compares.
  await waitFor(
    'two revisions in the history',
    async () => (await page.getByTestId('revision-row').count()) >= 2,
  );
  const numbers = await page
    .getByTestId('revision-row')
    .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-revision'))));
  const [to, from] = [...numbers].sort((a, b) => b - a);
  await chooseRevision(page.getByLabel('Compare from'), from!);
  await chooseRevision(page.getByLabel('Compare to'), to!);
  await page.getByTestId('revision-diff').waitFor();
}

/** The Edit YAML dialog with a reviewed change (its diff). */
async function showYamlReview(page: Page): Promise<void> {
  await page.getByTestId('rollout-panel').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Edit YAML', exact: true }).click();
  const manifest = yamlDialog(page).getByLabel('Manifest', { exact: true });
  await manifest.waitFor();
  await manifest.fill(withSpecField(await manifest.inputValue(), 'replicas', '5').text);
  await yamlDialog(page).getByRole('button', { name: 'Review changes', exact: true }).click();
  await page.getByTestId('yaml-diff').waitFor({ timeout: 15_000 });
}

/** The config editor open, showing a problem. */
async function showConfigProblem(page: Page): Promise<void> {
  await page.getByTestId('config-panel').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Edit config', exact: true }).click();
  await typeConfig(page, BAD_CONFIG);
  await page.getByTestId('config-problem').first().waitFor({ timeout: 15_000 });
}

/** The create form with every section open. */
async function showCreateSections(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Create', exact: true }).waitFor({ timeout: 30_000 });
  const closed = page.locator('details:not([open]) > summary');
  for (let tries = 0; tries < 10 && (await closed.count()) > 0; tries++) await closed.first().click();
}
