// The create form's inputs for issue 34's fields, in a real browser (Debian's Chromium against the built app with
// its controller on, on the local cluster): a Canary Nginx with ordered steps, rollbackOnFailure, a node selector, a
// priority class, TLS and an Ingress made through the form lands in kube-apiserver as the spec those inputs say,
// and the YAML mode shows the same fields and gives them back to the form; a BlueGreen Nginx made through the form
// (issue 46) lands with the blue-green fields it names, and none of the rolling bounds.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Nginx } from '../libs/nginx-api/src/index.js';
import { launchBrowser, newTab, signInWith, type TestBrowser } from './support/browser.js';
import { TOKEN_NAMES, TOKENS, startWebControlPlane, type ControlPlane } from './support/control-plane.js';
import { kubectl } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const NS = uniqueName('web-create');
const NAME = 'canary-form';
const LIMITED = { name: 'cleo-limited', token: 'limited-create-token-0123456789' };

let cp: ControlPlane;
let browser: TestBrowser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  await kubectl('create', 'namespace', NS);
  cp = await startWebControlPlane(NS, LIMITED);
  browser = await launchBrowser();
  page = await newTab(browser, pageErrors);
  await signInWith(page, cp.url, TOKENS.editor, TOKEN_NAMES.editor);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await cp?.stop();
  await kubectl('delete', 'namespace', NS, '--wait=false', '--ignore-not-found').catch(() => {});
});

const openSection = (name: string) => page.locator(`[data-section="${name}"] > summary`).click();

describe('the create form for canary, placement and TLS', () => {
  it('creates a Canary Nginx with steps, a node selector and TLS, and kube-apiserver holds that spec', async () => {
    await page.goto(`${cp.url}/nginxes/new?namespace=${NS}`);
    await page.getByLabel('Name', { exact: true }).fill(NAME);
    await page.getByLabel('Replicas', { exact: true }).fill('2');

    await openSection('rollout');
    await page.getByLabel('Strategy', { exact: true }).selectOption('Canary');
    await page.getByLabel('Canary steps', { exact: true }).fill('50%\npause 30s\npause\n100%');
    await page.getByLabel('Rollback on failure', { exact: true }).check();

    await openSection('service');
    await page.getByLabel('Create a Service', { exact: true }).check();

    await openSection('tls and ingress');
    await page.getByLabel('TLS Secret', { exact: true }).fill('web-tls');
    await page.getByLabel('Ingress host', { exact: true }).fill('web.example.com');
    await page.getByLabel('Ingress terminates TLS', { exact: true }).check();

    await openSection('placement');
    await page.getByLabel('Node selector', { exact: true }).fill('disktype=ssd\nzone=a');

    // The YAML mode carries every one of them, and gives them back to the form.
    await page.getByRole('button', { name: 'YAML', exact: true }).click();
    const yaml = await page.getByLabel('Manifest (YAML)').inputValue();
    for (const text of [
      'type: Canary',
      'setWeight: 50',
      'duration: 30s',
      'disktype: ssd',
      'secretName: web-tls',
    ])
      expect(yaml).toContain(text);
    await page.getByRole('button', { name: 'Form', exact: true }).click();
    expect(await page.getByLabel('Canary steps', { exact: true }).inputValue()).toBe(
      '50%\npause 30s\npause\n100%',
    );

    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await waitFor('the detail page', () => new URL(page.url()).pathname === `/nginxes/${NS}/${NAME}`);

    const held = JSON.parse(await kubectl('get', 'nginx', NAME, '-n', NS, '-o', 'json')) as Nginx;
    expect(held.spec).toMatchObject({
      replicas: 2,
      strategy: {
        type: 'Canary',
        canary: {
          steps: [{ setWeight: 50 }, { pause: { duration: '30s' } }, { pause: {} }, { setWeight: 100 }],
        },
      },
      rollbackOnFailure: true,
      service: {},
      tls: { secretName: 'web-tls' },
      ingress: { host: 'web.example.com', tls: true },
      nodeSelector: { disktype: 'ssd', zone: 'a' },
    });
    expect(held.spec.strategy).not.toHaveProperty('rollingUpdate');
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('creates a BlueGreen Nginx from the form: promotion by hand, a scale-down delay and one preview pod', async () => {
    const name = 'bluegreen-form';
    await page.goto(`${cp.url}/nginxes/new?namespace=${NS}`);
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Replicas', { exact: true }).fill('3');

    await openSection('rollout');
    await page.getByLabel('Max surge', { exact: true }).fill('2');
    await page.getByLabel('Strategy', { exact: true }).selectOption('BlueGreen');
    // The rolling bounds go with RollingUpdate; automatic promotion is on unless unchecked.
    expect(await page.getByLabel('Max surge', { exact: true }).count()).toBe(0);
    const automatic = page.getByLabel('Promote automatically', { exact: true });
    expect(await automatic.isChecked()).toBe(true);
    await automatic.uncheck();
    await page.getByLabel('Scale-down delay seconds', { exact: true }).fill('5');
    const preview = page.getByLabel('Preview replicas', { exact: true });
    // The schema's bound is shown at the field before anything is sent.
    await preview.fill('0');
    await page.getByTestId('error-spec-strategy-blueGreen-previewReplicaCount').waitFor({ timeout: 10_000 });
    await preview.fill('1');
    await page
      .getByTestId('error-spec-strategy-blueGreen-previewReplicaCount')
      .waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'YAML', exact: true }).click();
    const yaml = await page.getByLabel('Manifest (YAML)').inputValue();
    for (const text of ['type: BlueGreen', 'autoPromotionEnabled: false', 'previewReplicaCount: 1'])
      expect(yaml).toContain(text);
    await page.getByRole('button', { name: 'Form', exact: true }).click();
    expect(await page.getByLabel('Promote automatically', { exact: true }).isChecked()).toBe(false);

    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await waitFor('the detail page', () => new URL(page.url()).pathname === `/nginxes/${NS}/${name}`);

    const held = JSON.parse(await kubectl('get', 'nginx', name, '-n', NS, '-o', 'json')) as Nginx;
    expect(held.spec.strategy).toEqual({
      type: 'BlueGreen',
      blueGreen: { autoPromotionEnabled: false, scaleDownDelaySeconds: 5, previewReplicaCount: 1 },
    });
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
