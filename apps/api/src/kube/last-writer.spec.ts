import { describe, expect, it } from 'vitest';
import { lastWriter, stripManagedFieldsKeepingLastWriter } from './last-writer.js';

describe('stripManagedFieldsKeepingLastWriter', () => {
  it("drops managedFields, keeping aside the newest entry of the object itself (not a subresource's)", () => {
    const object = {
      metadata: {
        name: 'web',
        managedFields: [
          {
            manager: 'kubectl-client-side-apply',
            operation: 'Update',
            time: new Date('2026-11-26T10:00:00Z'),
          },
          { manager: 'argocd-controller', operation: 'Apply', time: new Date('2026-11-26T10:05:00Z') },
          {
            manager: 'nginx-controller',
            operation: 'Update',
            subresource: 'status',
            time: new Date('2026-11-26T10:06:00Z'),
          },
        ],
      },
    };
    const stripped = stripManagedFieldsKeepingLastWriter(object);
    expect(stripped.metadata).toEqual({ name: 'web' });
    expect(lastWriter(stripped)).toEqual({
      manager: 'argocd-controller',
      operation: 'Apply',
      time: '2026-11-26T10:05:00.000Z',
    });
    expect(lastWriter(stripManagedFieldsKeepingLastWriter({ metadata: { name: 'bare' } }))).toBeUndefined();
  });
});
