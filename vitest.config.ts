import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// NestJS dependency injection reads decorator metadata, which Vite's esbuild transform does not emit; SWC does.
const decorators = swc.vite({ module: { type: 'es6' } });

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [decorators],
        test: {
          name: 'unit',
          include: ['apps/*/src/**/*.spec.ts', 'libs/*/src/**/*.spec.ts', 'tools/**/*.spec.ts'],
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
