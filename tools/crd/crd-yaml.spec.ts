import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { nginxCrd } from '../../libs/nginx-api/src/index.js';
import { CRD_FILE, crdYaml } from './crd-yaml.js';

describe('the committed CRD manifest', () => {
  const committed = readFileSync(new URL(`../../${CRD_FILE}`, import.meta.url), 'utf8');

  it('is exactly what the Nginx schema generates (run `npm run crd:generate` after changing it)', () => {
    expect(committed).toBe(crdYaml());
    expect(parse(committed)).toEqual(nginxCrd());
  });

  it('defines nginxes.mycompany.com as the seed fixed it', () => {
    const crd = parse(committed);
    expect(crd.metadata.name).toBe('nginxes.mycompany.com');
    expect(crd.spec).toMatchObject({
      group: 'mycompany.com',
      scope: 'Namespaced',
      names: {
        kind: 'Nginx',
        listKind: 'NginxList',
        plural: 'nginxes',
        singular: 'nginx',
        shortNames: ['ngx'],
      },
    });
    const [version] = crd.spec.versions;
    expect(version).toMatchObject({ name: 'v1', served: true, storage: true });
    expect(version.schema.openAPIV3Schema.properties.spec.required).toEqual(['replicas']);
    expect(version.subresources.scale.specReplicasPath).toBe('.spec.replicas');
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual([
      'Desired',
      'Current',
      'Ready',
      'Image',
      'Age',
    ]);
  });
});
