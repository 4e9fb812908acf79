// Replaces tsc's dist/kubeconfig.js (a bare re-export of client-node's KubeConfig) with a bundle of KubeConfig and
// only the code it reaches; see src/kubeconfig.ts for why. Run by this package's build, after tsc.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
/** client-node's generated code (APIs, models, serializers): nothing in it runs on import that KubeConfig needs. */
const GENERATED = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]/;

await build({
  entryPoints: [join(root, 'src/kubeconfig.ts')],
  outfile: join(root, 'dist/kubeconfig.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'inline',
  // Bundled CommonJS dependencies (node-fetch, socks) call require() for Node's own modules.
  banner: {
    js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);",
  },
  plugins: [
    {
      // The generated modules assign static class fields at the top level, which esbuild must keep unless told
      // they have no side effects; without this the bundle still holds all 700 model classes.
      name: 'generated-code-is-pure',
      setup(bundler) {
        bundler.onResolve({ filter: /.*/ }, async (args) => {
          if (args.pluginData === 'resolving') return undefined;
          const resolved = await bundler.resolve(args.path, {
            importer: args.importer,
            resolveDir: args.resolveDir,
            kind: args.kind,
            pluginData: 'resolving',
          });
          if (resolved.errors.length > 0) return undefined; // esbuild reports it, or keeps an optional require
          return GENERATED.test(resolved.path) ? { ...resolved, sideEffects: false } : resolved;
        });
      },
    },
  ],
});

// tsc's source map described the re-export this bundle replaced.
rmSync(join(root, 'dist/kubeconfig.js.map'), { force: true });
