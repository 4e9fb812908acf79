import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from './support/api-process.js';
import { ROOT } from './support/paths.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(ROOT, '.data/screenshots');

describe('the web UI in a real browser', () => {
  let api: ApiProcess;
  let browser: BrowserContext;
  const profile = mkdtempSync(join(tmpdir(), 'ngx-chromium-'));

  beforeAll(async () => {
    api = await startApi({ DATABASE_URL: `file:${join(profile, 'audit.db')}`, WEB_MODE: 'production' });
    // A fresh profile every run (launchPersistentContext owns --user-data-dir).
    browser = await chromium.launchPersistentContext(join(profile, 'chromium'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await api?.stop();
    rmSync(profile, { recursive: true, force: true });
  });

  it("shows the API's health, fetched through the shared origin", async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(api.url);

    await expect.poll(() => page.title()).toBe('Nginx control plane');
    const panel = page.getByTestId('health-panel');
    await panel.getByText('ready', { exact: true }).waitFor();
    expect(await page.getByTestId('check-kubernetes').innerText()).toMatch(/Kubernetes v1\.\d+\.\d+/);
    expect(await page.getByTestId('check-database').innerText()).toMatch(/reachable.*sqlite/s);

    await page.getByRole('button', { name: 'Check again' }).click();
    await panel.getByText('ready', { exact: true }).waitFor();

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'home.png'), fullPage: true });
    expect(failures).toEqual([]);
  });
});
