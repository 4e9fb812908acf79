import type { Locator, Page } from 'playwright-core';
import { waitFor } from './wait.js';

/**
 * What the rollout panel of a detail page showed over time, recorded in the page itself (a MutationObserver), so
 * that states shown only for a moment are not missed between two polls. Times are epoch milliseconds on the
 * page's clock (`performance.timeOrigin + performance.now()`), comparable with `Date.now()` on this machine.
 */
export interface RolloutRecord {
  /** Every change of `rollout-state`'s data-state, in order (the state on installation first). */
  states: { state: string; at: number }[];
  /** Every change of `rollout-progress`'s data-updated, in order. */
  updated: { value: number; at: number }[];
  /** The most `revision-group`s that held pod rows at one moment. */
  maxGroupsWithPods: number;
  /** Per revision hash: when a pod row of it (its data-revision, else its group's) first showed. */
  firstPod: Record<string, number>;
}

// A string, not a function: a transpiler may wrap a function's inner names in helpers the page does not have.
const INSTALL = `(() => {
  if (window.__rollout) return;
  const now = () => performance.timeOrigin + performance.now();
  const record = { states: [], updated: [], maxGroupsWithPods: 0, firstPod: {} };
  window.__rollout = record;
  window.__rolloutReset = () => {
    record.states.length = 0;
    record.updated.length = 0;
    record.maxGroupsWithPods = 0;
    for (const key of Object.keys(record.firstPod)) delete record.firstPod[key];
    scan();
  };
  const scan = () => {
    const at = now();
    const state = document.querySelector('[data-testid="rollout-state"]')?.getAttribute('data-state');
    const lastState = record.states[record.states.length - 1];
    if (state && (!lastState || lastState.state !== state)) record.states.push({ state, at });
    const updated = document.querySelector('[data-testid="rollout-progress"]')?.getAttribute('data-updated');
    const lastUpdated = record.updated[record.updated.length - 1];
    if (updated != null && updated !== '' && (!lastUpdated || lastUpdated.value !== Number(updated)))
      record.updated.push({ value: Number(updated), at });
    let withPods = 0;
    for (const group of document.querySelectorAll('[data-testid="revision-group"]')) {
      const rows = group.querySelectorAll('[data-testid="pod-row"]');
      if (rows.length > 0) withPods++;
      for (const row of rows) {
        const revision = row.getAttribute('data-revision') || group.getAttribute('data-revision');
        if (revision && !(revision in record.firstPod)) record.firstPod[revision] = at;
      }
    }
    record.maxGroupsWithPods = Math.max(record.maxGroupsWithPods, withPods);
  };
  new MutationObserver(scan).observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['data-state', 'data-updated', 'data-revision', 'data-current', 'data-testid'],
  });
  scan();
})()`;

/** Starts recording the rollout panel of `page` (once per document; a reload starts afresh). */
export async function recordRollout(page: Page): Promise<void> {
  await page.evaluate(INSTALL);
}

/** Forgets what was recorded so far and records the panel's present state as the first entries. */
export async function resetRolloutRecord(page: Page): Promise<void> {
  await page.evaluate('window.__rolloutReset()');
}

/** A copy of what the page recorded. */
export function rolloutRecord(page: Page): Promise<RolloutRecord> {
  return page.evaluate('JSON.parse(JSON.stringify(window.__rollout))') as Promise<RolloutRecord>;
}

/** The rollout panel's state element. */
export const rolloutState = (page: Page): Locator => page.getByTestId('rollout-state');

/** One revision group of the rollout panel, by pod template hash. */
export const revisionGroup = (page: Page, hash: string): Locator =>
  page.locator(`[data-testid="revision-group"][data-revision="${hash}"]`);

/**
 * Waits until the rollout panel shows `state` (its data-state) with exactly one revision group, that of `hash`,
 * holding `pods` pod rows, none terminating.
 */
export async function waitForSettledRollout(
  page: Page,
  {
    state = 'complete',
    hash,
    pods,
    timeoutMs = 90_000,
  }: { state?: string; hash: string; pods: number; timeoutMs?: number },
): Promise<void> {
  await waitFor(
    `the rollout panel to show ${state} with one revision group (${hash}) of ${pods} pods`,
    async () => {
      if ((await rolloutState(page).getAttribute('data-state')) !== state) return false;
      const groups = await page
        .getByTestId('revision-group')
        .evaluateAll((all) => all.map((g) => g.getAttribute('data-revision')));
      if (groups.length !== 1 || groups[0] !== hash) return false;
      const rows = await revisionGroup(page, hash)
        .getByTestId('pod-row')
        .evaluateAll((all) => all.map((row) => row.getAttribute('data-terminating')));
      return rows.length === pods && rows.every((terminating) => terminating !== 'true');
    },
    { timeoutMs, intervalMs: 200 },
  );
}
