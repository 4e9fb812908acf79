import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// NestJS dependency injection reads decorator metadata, which Vite's esbuild transform does not emit; SWC does.
const decorators = swc.vite({ module: { type: 'es6' } });

// Tests run the libraries from source, so they never see a stale dist/.
const alias = {
  // Before the package itself: an alias also matches the subpaths of its name.
  '@ngx/kube-runtime/status': fileURLToPath(new URL('./libs/kube-runtime/src/api-error.ts', import.meta.url)),
  '@ngx/kube-runtime': fileURLToPath(new URL('./libs/kube-runtime/src/index.ts', import.meta.url)),
  '@ngx/nginx-api': fileURLToPath(new URL('./libs/nginx-api/src/index.ts', import.meta.url)),
  // apps/web's own path alias (its tsconfig's `@/*`).
  '@/': fileURLToPath(new URL('./apps/web/', import.meta.url)),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        plugins: [decorators],
        test: {
          name: 'unit',
          include: [
            'apps/*/src/**/*.spec.ts',
            'apps/web/{lib,components}/**/*.spec.ts',
            'libs/*/src/**/*.spec.ts',
            'tools/**/*.spec.ts',
          ],
          environment: 'node',
        },
      },
      {
        plugins: [decorators],
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          // One shared cluster: files run one after another, each test has room for real API round trips.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
