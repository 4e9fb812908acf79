import { describe, expect, it } from 'vitest';
import { nginxCrd } from './crd.js';
import { imageAllowlistRules, parseImageAllowlist } from './image-allowlist.js';
import { nginxSchema, type JsonSchema } from './schema.js';

const specOf = (crd: ReturnType<typeof nginxCrd>): JsonSchema =>
  crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!;

describe('nginxCrd', () => {
  it('has no image rules without an image allow-list', () => {
    expect(nginxCrd().spec.versions[0]!.schema.openAPIV3Schema).toBe(nginxSchema);
    expect(nginxSchema.properties!.spec!.properties!.image!['x-kubernetes-validations']).toBeUndefined();
  });

  it('puts the allow-list rules on spec.image and leaves the shared schema alone', () => {
    const allowlist = parseImageAllowlist('docker.io/library/nginx,registry.example.com/web/')!;
    const spec = specOf(nginxCrd({ imageAllowlist: allowlist }));
    expect(spec.required).toEqual(['replicas']);
    expect(spec.properties!.image).toEqual({
      ...nginxSchema.properties!.spec!.properties!.image,
      'x-kubernetes-validations': imageAllowlistRules(allowlist),
    });
    expect(spec.properties!.replicas).toBe(nginxSchema.properties!.spec!.properties!.replicas);
    expect(nginxSchema.properties!.spec!.properties!.image!['x-kubernetes-validations']).toBeUndefined();
  });

  it('requires spec.image, with no default, where the allow-list does not admit the default image', () => {
    // The API server refuses a CRD whose default fails its own rules.
    const spec = specOf(nginxCrd({ imageAllowlist: parseImageAllowlist('registry.example.com/web/')! }));
    expect(spec.required).toEqual(['replicas', 'image']);
    expect(spec.properties!.image!.default).toBeUndefined();
    expect(spec.properties!.image!.description).toMatch(/required, as the image allow-list does not admit/);
    expect(nginxSchema.properties!.spec!.required).toEqual(['replicas']);
  });
});
