// Positive controls for the "nothing went wrong" sentinels: each collector is shown to see the thing it guards
// against when it does happen, in the real app and a real browser — an error logged by the app (errorLines, as
// the log scrapes read it), a Content-Security-Policy violation and an uncaught page error on a page the app
// serves with its own policy (reportCspViolations and newTab of test/support/browser.ts). Without these, an
// empty list proves nothing: a collector that never fires passes every test.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newTab, reportCspViolations, type TestBrowser } from './support/browser.js';
import { startControlPlane, TOKENS, type ControlPlane } from './support/control-plane.js';
import { migrate, sqliteDatabase } from './support/database.js';
import { errorLines } from './support/log-lines.js';
import { waitFor } from './support/wait.js';

describe('the log scrape sees an error the app logs', () => {
  let cp: ControlPlane;
  let file: string;
  beforeAll(async () => {
    const database = await sqliteDatabase();
    await migrate(database.url);
    file = database.url.replace(/^file:/, '');
    cp = await startControlPlane({ DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('finds the "request failed" line of a 500, in the JSON logs the app writes by default', async () => {
    const before = errorLines(cp.output());
    expect(before.filter((line) => line.includes('request failed'))).toEqual([]);
    // The audit database under the running app turns to garbage: its next read fails in a way nothing expects.
    writeFileSync(file, Buffer.alloc(64 * 1024, 0x5a));
    const response = await fetch(`${cp.url}/controlplane/v1/audit/reconciles`, {
      headers: { Authorization: `Bearer ${TOKENS.viewer}` },
    });
    const text = await response.text();
    expect(response.status, text).toBe(500);
    expect(JSON.parse(text)).toMatchObject({ kind: 'Status', code: 500, message: 'internal error' });
    await waitFor('the error to be logged', async () =>
      errorLines(cp.output()).some((line) => line.includes('request failed')),
    );
    // The line is JSON with the level in lower case: what a case-sensitive /\bERROR\b/ scrape would miss.
    const line = errorLines(cp.output()).find((l) => l.includes('request failed'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 'error', message: 'request failed' });
    expect(line).not.toMatch(/\bERROR\b.*(request failed|internal error)/);
  });

  it('reads text logs too', () => {
    expect(
      errorLines(
        [
          '[Nest] 4242  - 11/26/2026, 2:00:00 PM     LOG [Main] listening on http://127.0.0.1:3000',
          '[Nest] 4242  - 11/26/2026, 2:00:01 PM   ERROR [StatusExceptionFilter] request failed {"error":"x"}',
          '{"level":"warn","message":"slow"}',
          '{"level":"error","message":"request failed"}',
          'not json { at all',
        ].join('\n'),
      ),
    ).toHaveLength(2);
  });
});

describe('the browser collectors see a CSP violation and a page error', () => {
  let cp: ControlPlane;
  let browser: TestBrowser;
  const violations: string[] = [];
  const pageErrors: string[] = [];
  beforeAll(async () => {
    cp = await startControlPlane({}, { web: true });
    browser = await launchBrowser();
    await reportCspViolations(browser, violations);
  });
  afterAll(async () => {
    await browser?.close();
    await cp?.stop();
  });

  it('collects both on a page of the app, served with its own policy', async () => {
    const tab = await newTab(browser, pageErrors);
    const response = await tab.goto(`${cp.url}/sign-in`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src/);
    await tab.getByLabel('API token').waitFor();
    // The page as served: no violation, no error (what the UI tests assert at their end).
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);

    // An inline event handler: the policy ('strict-dynamic' with a nonce) blocks it and the page reports it.
    await tab.evaluate(() => {
      const button = document.createElement('button');
      button.setAttribute('onclick', 'window.__ran = true');
      document.body.append(button);
      button.click();
    });
    await waitFor('the CSP violation to be collected', async () => violations.length > 0, {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(violations[0]).toMatch(/script-src(-attr|-elem)? blocked inline/);
    expect(await tab.evaluate(() => (window as unknown as { __ran?: boolean }).__ran)).toBeUndefined();

    // An exception nothing catches: the tab's pageerror listener has it.
    await tab.evaluate(() =>
      setTimeout(() => {
        throw new Error('a deliberate page error');
      }),
    );
    await waitFor('the page error to be collected', async () => pageErrors.length > 0, {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(pageErrors).toEqual([expect.stringContaining('a deliberate page error')]);
  });
});
