// Writes deploy/crd/nginxes.mycompany.com.yaml, and its copy in the Helm chart
// (deploy/helm/nginx-control-plane/files/), from libs/nginx-api. With --image-allowlist=PREFIX,… it prints
// the CRD with that image allow-list's CEL rules instead (for an admin who applies the CRD with INSTALL_CRD=false);
// the committed manifest stays without one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ImageAllowlistError, parseImageAllowlist } from '../../libs/nginx-api/src/index.js';
import { CRD_FILES, crdYaml } from './crd-yaml.js';

const { values } = parseArgs({ options: { 'image-allowlist': { type: 'string' } } });
if (values['image-allowlist'] === undefined) {
  for (const file of CRD_FILES) {
    writeFileSync(join(fileURLToPath(new URL('../..', import.meta.url)), file), crdYaml());
    console.log(`wrote ${file}`);
  }
} else {
  try {
    const allowlist = parseImageAllowlist(values['image-allowlist']);
    if (!allowlist) throw new ImageAllowlistError('names no prefix');
    process.stdout.write(crdYaml(allowlist));
  } catch (error) {
    if (!(error instanceof ImageAllowlistError)) throw error;
    console.error(`--image-allowlist: ${error.message}`);
    process.exit(2);
  }
}
