// Writes deploy/crd/nginxes.mycompany.com.yaml from libs/nginx-api.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRD_FILE, crdYaml } from './crd-yaml.js';

writeFileSync(join(fileURLToPath(new URL('../..', import.meta.url)), CRD_FILE), crdYaml());
console.log(`wrote ${CRD_FILE}`);
