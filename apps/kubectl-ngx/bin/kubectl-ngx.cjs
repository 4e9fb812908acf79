#!/usr/bin/env node
// The bundled plugin (build.mjs): a committed entry, so installs link it before the bundle is built.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS, as the bundle it loads
require('../dist/kubectl-ngx.cjs');
