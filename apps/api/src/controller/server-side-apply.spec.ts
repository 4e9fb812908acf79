import type { KubeObject } from '@ngx/kube-runtime';
import { describe, expect, it } from 'vitest';
import { applyNeeded, FIELD_MANAGER, keepOwnManagedFields, legacyUpdateEntry } from './server-side-apply.js';

const desired = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web' },
    ownerReferences: [
      { apiVersion: 'mycompany.com/v1', kind: 'Nginx', name: 'web', uid: 'u1', controller: true },
    ],
  },
  spec: {
    type: 'NodePort',
    selector: { app: 'web' },
    ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }],
  },
} as KubeObject;

/** The fieldsV1 kube-apiserver records for an apply of `desired` (Service selector is an atomic map). */
const appliedFields = {
  'f:metadata': {
    'f:labels': { 'f:app': {} },
    'f:ownerReferences': {
      'k:{"uid":"u1"}': {
        '.': {},
        'f:apiVersion': {},
        'f:kind': {},
        'f:name': {},
        'f:uid': {},
        'f:controller': {},
      },
    },
  },
  'f:spec': {
    'f:type': {},
    'f:selector': {},
    'f:ports': {
      'k:{"port":80,"protocol":"TCP"}': {
        '.': {},
        'f:name': {},
        'f:port': {},
        'f:protocol': {},
        'f:targetPort': {},
      },
    },
  },
};

const entry = (fieldsV1: object, operation = 'Apply', apiVersion = 'v1') => ({
  manager: FIELD_MANAGER,
  operation,
  apiVersion,
  fieldsV1,
});

/** The parts of a live Service the cases change. */
interface LiveService {
  spec: { ports: { targetPort: number }[]; selector: Record<string, string> };
  metadata: { labels: Record<string, string> };
}
type Fields = Record<string, Record<string, Record<string, Record<string, object>>>>;

/** `desired` as the API server keeps it: keys in another order, defaults and allocations added, our entry. */
function live(
  fieldsV1: object = appliedFields,
  change: (object: LiveService) => void = () => {},
): KubeObject {
  const object = {
    spec: {
      ports: [{ targetPort: 8080, port: 80, protocol: 'TCP', name: 'http', nodePort: 31234 }],
      selector: { app: 'web' },
      type: 'NodePort',
      clusterIP: '10.0.0.7',
      sessionAffinity: 'None',
    },
    metadata: {
      ...structuredClone(desired.metadata),
      labels: { app: 'web', team: 'a' },
      resourceVersion: '7',
      managedFields: [entry(fieldsV1), { manager: 'kubectl', operation: 'Update', fieldsV1: {} }],
    },
  };
  change(object as unknown as LiveService);
  return object as unknown as KubeObject;
}

describe('applyNeeded', () => {
  it('is false when we manage exactly what we declare and it holds, whatever else is there', () => {
    expect(applyNeeded(live(), desired)).toBe(false);
  });

  it('is true without our Apply entry, or one of another apiVersion', () => {
    expect(applyNeeded({ ...live(), metadata: { name: 'web' } }, desired)).toBe(true);
    const old = live();
    old.metadata!.managedFields = [entry(appliedFields, 'Update') as never];
    expect(applyNeeded(old, desired)).toBe(true);
    old.metadata!.managedFields = [entry(appliedFields, 'Apply', 'v2') as never];
    expect(applyNeeded(old, desired)).toBe(true);
  });

  it('is true when a field we manage was changed by hand', () => {
    expect(
      applyNeeded(
        live(appliedFields, (o) => (o.spec.ports[0]!.targetPort = 9090)),
        desired,
      ),
    ).toBe(true);
    expect(
      applyNeeded(
        live(appliedFields, (o) => (o.spec.selector.extra = 'x')),
        desired,
      ),
    ).toBe(true);
  });

  it('is true when another manager took a field over, or we manage one the spec dropped', () => {
    const { 'f:type': _type, ...withoutType } = appliedFields['f:spec'];
    expect(applyNeeded(live({ ...appliedFields, 'f:spec': withoutType }), desired)).toBe(true);
    const extra = structuredClone(appliedFields) as unknown as Fields;
    extra['f:spec']!['f:ports']!['k:{"port":80,"protocol":"TCP"}']!['f:nodePort'] = {};
    expect(applyNeeded(live(extra), desired)).toBe(true);
    extra['f:spec']!['f:ports']!['k:{"port":443,"protocol":"TCP"}'] = { '.': {}, 'f:port': {} };
    expect(applyNeeded(live(extra), desired)).toBe(true);
  });

  it('is true when the spec declares a field we do not manage yet', () => {
    const more = structuredClone(desired);
    more.metadata!.labels!.tier = 'front';
    expect(
      applyNeeded(
        live(appliedFields, (o) => (o.metadata.labels.tier = 'front')),
        more,
      ),
    ).toBe(true);
  });
});

describe('keepOwnManagedFields and legacyUpdateEntry', () => {
  it("keeps only our own entries, and finds the Update one earlier versions' writes left before any apply", () => {
    const object = live();
    object.metadata!.managedFields!.push(entry({}, 'Update') as never);
    const kept = keepOwnManagedFields(object);
    expect(kept.metadata!.managedFields!.map((e) => e.operation)).toEqual(['Apply', 'Update']);
    expect(legacyUpdateEntry(kept)).toBeUndefined(); // already applied: the Apply entry is ours
    kept.metadata!.managedFields = [
      { manager: 'kubectl', operation: 'Update' },
      entry({}, 'Update') as never,
    ];
    expect(legacyUpdateEntry(kept)).toBe(1);
    expect(legacyUpdateEntry(live())).toBeUndefined();
    const foreign = live();
    foreign.metadata!.managedFields = [{ manager: 'kubectl', operation: 'Update' }];
    expect(keepOwnManagedFields(foreign).metadata!.managedFields).toBeUndefined();
  });
});
