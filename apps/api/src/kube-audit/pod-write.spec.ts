import { describe, expect, it } from 'vitest';
import type { AuditEvent } from './audit-event.js';
import { podWriteEntry, type PodWriteContext } from './pod-write.js';

const context: PodWriteContext = {
  self: 'control-plane',
  watchNamespaces: undefined,
  podOwner: (namespace, pod) => (pod === 'web-1' ? { nginx: 'web', nginxUid: 'n1' } : undefined),
};
const event = (overrides: Partial<AuditEvent> = {}): AuditEvent => ({
  level: 'Metadata',
  auditID: 'a1',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/shop/pods/web-1',
  verb: 'delete',
  user: { username: 'alice' },
  objectRef: { resource: 'pods', namespace: 'shop', name: 'web-1', apiVersion: 'v1' },
  responseStatus: { code: 200 },
  requestReceivedTimestamp: '2026-11-26T10:00:00Z',
  stageTimestamp: '2026-11-26T10:00:00.010Z',
  ...overrides,
});

describe('podWriteEntry', () => {
  it("keeps who deleted or evicted one of an Nginx's pods", () => {
    expect(podWriteEntry(event(), context)).toMatchObject({
      kind: 'pod-write',
      what: 'delete',
      nginx: 'web',
      nginxUid: 'n1',
      pod: 'web-1',
      actor: 'alice',
      type: 'Success',
      reason: null,
    });
    const eviction = event({
      verb: 'create',
      objectRef: { resource: 'pods', subresource: 'eviction', namespace: 'shop', name: 'web-1' },
      impersonatedUser: { username: 'drain-bot' },
      responseStatus: { code: 429, reason: 'TooManyRequests', message: 'budget' },
    });
    expect(podWriteEntry(eviction, context)).toMatchObject({
      what: 'evict',
      actor: 'drain-bot',
      type: 'Failure',
      reason: 'TooManyRequests',
      message: 'budget',
    });
  });

  it("skips the controller's own writes, other pods, other subresources, dry runs and other namespaces", () => {
    expect(
      podWriteEntry(event({ user: { username: 'control-plane' }, auditID: 'ngx-ctrl-1' }), context),
    ).toBeUndefined();
    expect(
      podWriteEntry(event({ objectRef: { resource: 'pods', namespace: 'shop', name: 'db-1' } }), context),
    ).toBeUndefined();
    expect(
      podWriteEntry(
        event({ objectRef: { resource: 'pods', subresource: 'status', namespace: 'shop', name: 'web-1' } }),
        context,
      ),
    ).toBeUndefined();
    expect(
      podWriteEntry(event({ requestURI: '/api/v1/namespaces/shop/pods/web-1?dryRun=All' }), context),
    ).toBeUndefined();
    expect(podWriteEntry(event(), { ...context, watchNamespaces: ['other'] })).toBeUndefined();
  });
});
