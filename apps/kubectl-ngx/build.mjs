// Bundles the plugin into one file with no dependencies left to install (dist/kubectl-ngx.cjs): what `npm install -g`
// and krew put on PATH. The workspace libraries come from their builds (dist/), as for the app. CommonJS, so the file runs under any name (krew's `kubectl-ngx` has no extension).
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const outfile = join(root, 'dist/kubectl-ngx.cjs');
await build({
  entryPoints: [join(root, 'src/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'inline',
  // kube-runtime's bundled kubeconfig module makes its require() from import.meta.url, which CommonJS lacks.
  banner: {
    js: "#!/usr/bin/env node\nconst importMetaUrl = require('node:url').pathToFileURL(__filename).href;",
  },
  define: { 'import.meta.url': 'importMetaUrl' },
  logOverride: { 'equals-negative-zero': 'silent' },
});
chmodSync(outfile, 0o755);
