import { createHash, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './paths.js';

/** Debian's Chromium (no browser downloads here); CHROMIUM_PATH overrides it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, '.data/screenshots');

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface TestBrowser {
  context: BrowserContext;
  close: () => Promise<void>;
}

/** A headless Chromium with a fresh profile, deleted again on close. */
/**
 * `trustCertificates`: PEM files of serving certificates Chromium takes without a CA it knows (by the hash of
 * their public key, `--ignore-certificate-errors-spki-list`), e.g. the app's and the OpenID provider's, signed
 * by the local cluster's CA; every other certificate is checked as usual.
 */
export async function launchBrowser(options: { trustCertificates?: string[] } = {}): Promise<TestBrowser> {
  const spkis = (options.trustCertificates ?? []).map((file) =>
    createHash('sha256')
      .update(new X509Certificate(readFileSync(file)).publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64'),
  );
  const profile = mkdtempSync(join(tmpdir(), 'ngx-chromium-'));
  // launchPersistentContext owns --user-data-dir, so the profile is fresh every run.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1360, height: 900 },
    acceptDownloads: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(spkis.length > 0 ? [`--ignore-certificate-errors-spki-list=${spkis.join(',')}`] : []),
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot as .data/screenshots/<name>.png (git-ignored). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** Runs axe-core in the page (WCAG 2.x A/AA rules and best practices) and returns its violations. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => 'axe' in globalThis);
  if (!loaded) await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async () => {
    const page = globalThis as unknown as {
      document: unknown;
      axe: { run: (context: unknown, options: object) => Promise<{ violations: AxeViolation[] }> };
    };
    const { violations } = await page.axe.run(page.document, { resultTypes: ['violations'] });
    return violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** One line per violation and node, for a readable assertion failure. */
export const describeViolations = (violations: AxeViolation[]) =>
  violations.flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id} (${v.help}) at ${n.target.join(' ')}`));

/** Collects the Content-Security-Policy violations of every page the context opens, from its first script on. */
export async function reportCspViolations(browser: TestBrowser, violations: string[]): Promise<void> {
  await browser.context.exposeBinding('__reportCspViolation', ({ page }, violation: string) => {
    violations.push(`${page.url()}: ${violation}`);
  });
  await browser.context.addInitScript(`document.addEventListener('securitypolicyviolation', (event) =>
    window.__reportCspViolation(event.violatedDirective + ' blocked ' + (event.blockedURI || '(inline)') +
      ' at ' + event.sourceFile + ':' + event.lineNumber + ' ' + event.sample))`);
}

/** A new tab whose uncaught page errors are added to `errors`. */
export async function newTab(browser: TestBrowser, errors: string[]): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return page;
}

/** Signs in on `/sign-in` of `url` with `token`, and waits for the header to name `name`. */
export async function signInWith(page: Page, url: string, token: string, name: string): Promise<void> {
  await page.goto(`${url}/sign-in`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('identity').getByText(name).waitFor({ timeout: 20_000 });
}

/** Marks the document, so a later `notReloaded` can tell the page was not reloaded. */
export const markDocument = (page: Page) =>
  page.evaluate(() => ((globalThis as unknown as { __notReloaded: boolean }).__notReloaded = true));
export const notReloaded = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { __notReloaded?: boolean }).__notReloaded === true);
