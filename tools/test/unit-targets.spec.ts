// Every unit spec runs in `npm test`: vitest's unit project lists where specs are (vitest.config.ts), but what
// runs them is one Nx `test` target a project (`vitest run --project unit <paths>`). A spec under no target's
// paths is never run, and nothing says so (bench/convergence/flame-graph.spec.ts was one).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', '.next', '.nx', '.data', '.cluster', '.git', 'test']);

function specs(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : specs(path);
    return entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

const readJson = (path: string) =>
  JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as {
    nx?: { targets?: { test?: { options?: { command?: string } } } };
  };

/** The paths each project's `test` target hands to vitest. */
function testedPaths(): string[] {
  const paths: string[] = [];
  for (const group of ['apps', 'libs'])
    for (const project of readdirSync(join(ROOT, group))) {
      const manifest = join(group, project, 'package.json');
      let target;
      try {
        target = readJson(manifest).nx?.targets?.test;
      } catch {
        continue;
      }
      // No command of its own: nx.json's default, `vitest run --project unit {projectRoot}/`.
      if (target) paths.push(`${group}/${project}/`);
    }
  const command = readJson('package.json').nx?.targets?.test?.options?.command ?? '';
  paths.push(...(/--project unit ((?:\S+\/ )+)/.exec(`${command} `)?.[1]?.trim().split(' ') ?? []));
  return paths;
}

describe('unit test targets', () => {
  it('run every unit spec', () => {
    const covered = testedPaths();
    expect(covered).toContain('bench/');
    const all = specs('');
    expect(all).toContain('bench/convergence/flame-graph.spec.ts');
    expect(all.filter((spec) => !covered.some((path) => spec.startsWith(path)))).toEqual([]);
  });
});
