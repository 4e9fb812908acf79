import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { decodeReview } from './review-protobuf.js';

/** What kubectl sends for `kubectl auth can-i patch nginxes.mycompany.com/scale -n team`, built field by field. */
function accessReview(attributes: Record<number, string>): Buffer {
  const resource = new BinaryWriter();
  for (const [field, value] of Object.entries(attributes)) resource.tag(Number(field), 2).string(value);
  const spec = new BinaryWriter().tag(1, 2).bytes(resource.finish()).finish();
  const review = new BinaryWriter().tag(1, 2).bytes(new Uint8Array()).tag(2, 2).bytes(spec).finish();
  const typeMeta = new BinaryWriter()
    .tag(1, 2)
    .string('authorization.k8s.io/v1')
    .tag(2, 2)
    .string('SelfSubjectAccessReview')
    .finish();
  const unknown = new BinaryWriter()
    .tag(1, 2)
    .bytes(typeMeta)
    .tag(2, 2)
    .bytes(review)
    .tag(4, 2)
    .string('')
    .finish();
  return Buffer.concat([Buffer.from('k8s\0', 'binary'), unknown]);
}

describe('decodeReview', () => {
  it('reads the kind and the resource attributes of an access review', () => {
    expect(
      decodeReview(
        accessReview({ 1: 'team', 2: 'patch', 3: 'mycompany.com', 4: 'v1', 5: 'nginxes', 6: 'scale' }),
      ),
    ).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          namespace: 'team',
          verb: 'patch',
          group: 'mycompany.com',
          resource: 'nginxes',
          subresource: 'scale',
        },
      },
    });
  });

  it('refuses what is not a Kubernetes protobuf envelope, and survives a truncated one', () => {
    expect(() => decodeReview(Buffer.from('{"kind":"x"}'))).toThrow(/envelope/);
    const whole = accessReview({ 2: 'get' });
    expect(() => decodeReview(whole.subarray(0, whole.length - 3))).toThrow();
  });
});
