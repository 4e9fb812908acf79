// npm run deploy:render: writes the kustomizations deploy/app and deploy/postgresql from the Helm chart
// deploy/helm/nginx-control-plane (its default values, namespace nginx-control-plane), replacing every YAML file
// there. With --out=DIR it writes them under DIR instead (test/deploy-helm.test.ts compares that with deploy/).
// deploy/crd is written by npm run crd:generate, which also writes the chart's copy of the CRD.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { KUSTOMIZATIONS, ROOT, renderKustomizations } from './chart.js';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = values.out ?? ROOT;
const files = await renderKustomizations();
for (const { dir } of Object.values(KUSTOMIZATIONS)) {
  mkdirSync(join(out, dir), { recursive: true });
  for (const name of readdirSync(join(out, dir))) if (/\.ya?ml$/.test(name)) rmSync(join(out, dir, name));
}
for (const [path, text] of files) {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  writeFileSync(join(out, path), text);
}
console.log(
  `wrote ${files.size} files under ${Object.values(KUSTOMIZATIONS)
    .map((k) => k.dir)
    .join(', ')}`,
);
