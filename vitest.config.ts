import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// NestJS dependency injection reads decorator metadata, which Vite's esbuild transform does not emit; SWC does.
const decorators = swc.vite({ module: { type: 'es6' } });

// Tests run the libraries from source, so they never see a stale dist/.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const alias = [
  // Before the package itself: an alias also matches the subpaths of its name.
  { find: '@ngx/kube-runtime/status', replacement: source('./libs/kube-runtime/src/api-error.ts') },
  { find: '@ngx/kube-runtime/kubeconfig', replacement: source('./libs/kube-runtime/src/kubeconfig.ts') },
  { find: '@ngx/kube-runtime', replacement: source('./libs/kube-runtime/src/index.ts') },
  { find: '@ngx/nginx-api', replacement: source('./libs/nginx-api/src/index.ts') },
  // apps/web's own path alias (its tsconfig's `@/*`).
  { find: /^@\/(.*)$/, replacement: `${source('./apps/web/')}$1` },
];

/**
 * The integration files (test/, the image's test aside) and which of them run alone: those whose first line starts
 * `// Runs alone:` and says why (they restart kube-apiserver, take a port the cluster calls, change what every file
 * shares, or run a controller over every namespace). The others only touch their own namespaces, free ports and
 * databases, so they run side by side against the one cluster, and the lone ones one at a time after them.
 */
const RUNS_ALONE = '// Runs alone:';
const integrationFiles = readdirSync(source('./test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && !file.startsWith('image/'))
  .map((file) => `test/${file}`);
const loneFiles = integrationFiles.filter((file) =>
  readFileSync(source(`./${file}`), 'utf8').startsWith(RUNS_ALONE),
);
/**
 * Vitest's order (unknown files first, then the longer or the larger first, by its cache of earlier runs), except
 * that a file whose first line starts `// Starts first:` leads its project: on a fresh clone there is no cache, and
 * a small file that runs for minutes would otherwise start last and keep the others waiting.
 */
const STARTS_FIRST = '// Starts first:';
class StartsFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const first = (file: TestSpecification) =>
      readFileSync(file.moduleId, 'utf8').startsWith(STARTS_FIRST) ? 0 : 1;
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((file, index) => [file, index]));
    // Stable: within a project, the marked files first, in the order Vitest gave them; projects keep their order.
    return sorted.sort((a, b) =>
      a.project === b.project
        ? first(a) - first(b) || position.get(a)! - position.get(b)!
        : position.get(a)! - position.get(b)!,
    );
  }
}

const integration = {
  environment: 'node',
  // kube-apiserver writes its audit log for the whole run (restarted once for it if the cluster runs without).
  globalSetup: 'test/support/cluster-audit-log.setup.ts',
  // Room for real API round trips against the cluster.
  testTimeout: 60_000,
  hookTimeout: 120_000,
} as const;

export default defineConfig({
  resolve: { alias },
  test: {
    sequence: { sequencer: StartsFirstSequencer },
    projects: [
      {
        extends: true,
        plugins: [decorators],
        test: {
          name: 'unit',
          include: [
            'apps/*/src/**/*.spec.ts',
            'apps/web/{lib,components,features}/**/*.spec.ts',
            'libs/*/src/**/*.spec.ts',
            'tools/**/*.spec.ts',
            'bench/**/*.spec.ts',
          ],
          environment: 'node',
        },
      },
      {
        extends: true,
        plugins: [decorators],
        test: {
          ...integration,
          name: 'integration',
          include: integrationFiles.filter((file) => !loneFiles.includes(file)),
          // Mostly waiting on the cluster, not computing: three files at a time on two cores.
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        plugins: [decorators],
        test: {
          ...integration,
          name: 'integration-alone',
          include: loneFiles,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'image',
          sequence: { groupOrder: 3 },
          include: ['test/image/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
