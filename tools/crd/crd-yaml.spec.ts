import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { nginxCrd, parseImageAllowlist } from '../../libs/nginx-api/src/index.js';
import { CHART_CRD_FILE, CRD_FILE, crdYaml } from './crd-yaml.js';

describe('the committed CRD manifest', () => {
  const committed = readFileSync(new URL(`../../${CRD_FILE}`, import.meta.url), 'utf8');

  it('is exactly what the Nginx schema generates (run `npm run crd:generate` after changing it)', () => {
    expect(committed).toBe(crdYaml());
    expect(parse(committed)).toEqual(nginxCrd());
  });

  it("is the Helm chart's CRD too, byte for byte (npm run crd:generate writes both)", () => {
    expect(readFileSync(new URL(`../../${CHART_CRD_FILE}`, import.meta.url), 'utf8')).toBe(committed);
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
      'Ready',
      'Up-to-date',
      'Available',
      'Image',
      'Age',
    ]);
  });

  it('has no image allow-list', () => {
    const image = parse(committed).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.image;
    expect(image['x-kubernetes-validations']).toBeUndefined();
    expect(committed).not.toContain('allow-list');
  });
});

describe('the CRD generated with --image-allowlist', () => {
  it('carries the allow-list rules on spec.image and says how it was made', () => {
    const allowlist = parseImageAllowlist('docker.io/nginx,registry.example.com/web/')!;
    const text = crdYaml(allowlist);
    expect(text.split('\n')[0]).toContain(
      '`npm run crd:generate -- --image-allowlist=docker.io/library/nginx,registry.example.com/web/`',
    );
    expect(parse(text)).toEqual(nginxCrd({ imageAllowlist: allowlist }));
    const image = parse(text).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.image;
    expect(image['x-kubernetes-validations']).toHaveLength(2);
  });
});
