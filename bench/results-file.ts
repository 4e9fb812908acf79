import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../test/support/paths.js';

export const RESULTS_DIR = join(ROOT, 'bench/results');

/** What every committed result says about the run: when, at which commit, on which versions. */
export function runStamp(kubernetes: string) {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  return { date: new Date().toISOString(), commit, kubernetes, node: process.version };
}

/** Writes bench/results/<name>.md (the table) and <name>.json (the figures behind it), and prints the table. */
export function writeResults(name: string, markdown: string, figures: unknown): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${name}.md`), markdown);
  writeFileSync(join(RESULTS_DIR, `${name}.json`), `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`\n${markdown}`);
}
