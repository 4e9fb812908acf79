import type { CoreV1Event } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { eventEntry, eventEntryFields } from './event-entry.js';

const event = (overrides: Partial<CoreV1Event>): CoreV1Event => ({
  metadata: { name: 'e', namespace: 'shop', uid: 'e1' },
  involvedObject: {
    kind: 'Nginx',
    apiVersion: 'mycompany.com/v1',
    name: 'web',
    namespace: 'shop',
    uid: 'n1',
  },
  reason: 'FailedCreate',
  message: 'exceeded quota: pods',
  type: 'Warning',
  count: 3,
  lastTimestamp: new Date('2026-11-26T10:00:03Z'),
  reportingComponent: 'nginx-control-plane',
  ...overrides,
});
const owners = (namespace: string, pod: string) =>
  namespace === 'shop' && pod === 'web-1' ? { nginx: 'web', nginxUid: 'n1' } : undefined;

describe('eventEntry', () => {
  it('keeps an Event about an Nginx, once per count', () => {
    expect(eventEntry(event({}), owners)).toEqual({
      at: new Date('2026-11-26T10:00:03Z'),
      namespace: 'shop',
      nginx: 'web',
      nginxUid: 'n1',
      kind: 'event',
      what: 'FailedCreate',
      pod: null,
      podUid: null,
      node: null,
      reason: 'FailedCreate',
      message: 'exceeded quota: pods',
      actor: 'nginx-control-plane',
      type: 'Warning',
      count: 3,
      dedupeKey: 'event:e1:3',
    });
    // events.k8s.io series: its count and last time.
    const series = eventEntry(
      event({ series: { count: 7, lastObservedTime: new Date('2026-11-26T10:05:00Z') } }),
      owners,
    );
    expect(series).toMatchObject({ count: 7, dedupeKey: 'event:e1:7', at: new Date('2026-11-26T10:05:00Z') });
  });

  it('places our own Event at the millisecond it happened, not its whole-second timestamp', () => {
    // The scale-up that caused the refusal came at 10:00:03.345; the Event says 10:00:03.
    const happenedAt = new Date('2026-11-26T10:00:03.412Z');
    expect(eventEntry(event({}), owners, happenedAt)).toMatchObject({
      at: happenedAt,
      dedupeKey: 'event:e1:3',
    });
  });

  it("keeps an Event about one of an Nginx's pods, and nothing about other objects", () => {
    const about = { kind: 'Pod', apiVersion: 'v1', name: 'web-1', namespace: 'shop', uid: 'p1' };
    expect(eventEntry(event({ involvedObject: about, reason: 'Scheduled' }), owners)).toMatchObject({
      nginx: 'web',
      pod: 'web-1',
      podUid: 'p1',
      what: 'Scheduled',
    });
    expect(eventEntry(event({ involvedObject: { ...about, name: 'other' } }), owners)).toBeUndefined();
    expect(eventEntry(event({ involvedObject: { ...about, kind: 'Node' } }), owners)).toBeUndefined();
  });

  it('reads nothing eventEntryFields leaves out (the Events cache keeps only those fields)', () => {
    const full = event({
      metadata: {
        name: 'e',
        namespace: 'shop',
        uid: 'e1',
        resourceVersion: '7',
        creationTimestamp: new Date('2026-11-26T10:00:00Z'),
        labels: { a: 'b' },
        managedFields: [{ manager: 'kube-scheduler' }],
      },
      involvedObject: {
        kind: 'Pod',
        apiVersion: 'v1',
        name: 'web-1',
        namespace: 'shop',
        uid: 'p1',
        fieldPath: 'spec',
      },
      source: { component: 'default-scheduler', host: 'node-1' },
      series: { count: 4, lastObservedTime: new Date('2026-11-26T10:00:09Z') },
      eventTime: new Date('2026-11-26T10:00:01Z'),
      reportingInstance: 'scheduler-1',
      action: 'Binding',
    });
    const kept = eventEntryFields(full);
    expect(eventEntry(kept, owners)).toEqual(eventEntry(full, owners));
    expect(kept.metadata).toEqual({
      name: 'e',
      namespace: 'shop',
      uid: 'e1',
      resourceVersion: '7',
      creationTimestamp: new Date('2026-11-26T10:00:00Z'),
    });
    for (const at of [{ series: undefined }, { series: undefined, lastTimestamp: undefined }])
      expect(eventEntry(eventEntryFields({ ...full, ...at }), owners)).toEqual(
        eventEntry({ ...full, ...at }, owners),
      );
  });
});
