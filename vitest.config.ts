import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { configDefaults, defineConfig } from 'vitest/config';

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

export default defineConfig({
  resolve: { alias },
  test: {
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
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // The image's test needs the built image (npm run test:image), not part of npm test.
          exclude: [...configDefaults.exclude, 'test/image/**'],
          environment: 'node',
          // One shared cluster: files run one after another, each test has room for real API round trips.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'image',
          include: ['test/image/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
