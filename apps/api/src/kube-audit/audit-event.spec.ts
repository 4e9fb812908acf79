import { describe, expect, it } from 'vitest';
import { eventError, eventListError, parseEventList } from './audit-event.js';

const good = {
  level: 'Metadata',
  auditID: 'a',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/pods',
  verb: 'create',
  user: { username: 'alice', groups: ['g'] },
  requestReceivedTimestamp: '2026-11-26T10:00:00.123456Z',
  stageTimestamp: '2026-11-26T10:00:00Z',
};

describe('audit events', () => {
  it('takes an audit.k8s.io/v1 EventList only', () => {
    expect(eventListError({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: [] })).toBeUndefined();
    expect(eventListError([])).toContain('not a JSON object');
    expect(eventListError({ kind: 'List', apiVersion: 'audit.k8s.io/v1', items: [] })).toContain('kind');
    expect(eventListError({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1beta1', items: [] })).toContain(
      'apiVersion',
    );
    expect(eventListError({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: {} })).toContain(
      'items',
    );
  });

  it('checks each event on its own, keeping the good ones', () => {
    const { events, invalid } = parseEventList({ items: [good, { ...good, user: 'alice' }, 7] });
    expect(events).toEqual([good]);
    expect(invalid).toEqual([
      { index: 1, reason: 'user must be an object' },
      { index: 2, reason: 'not an object' },
    ]);
  });

  it.each([
    [{ auditID: '' }, 'auditID'],
    [{ stageTimestamp: 'yesterday' }, 'stageTimestamp'],
    [{ user: { username: 1 } }, 'user.username'],
    [{ user: { username: 'a', groups: [1] } }, 'user.groups'],
    [{ impersonatedUser: { groups: [] } }, 'impersonatedUser.username'],
    [{ objectRef: { name: 5 } }, 'objectRef.name'],
    [{ responseStatus: { code: 'ok' } }, 'responseStatus.code'],
    [{ responseStatus: { code: 200, message: {} } }, 'responseStatus.message'],
    [{ userAgent: 3 }, 'userAgent'],
  ])('refuses %j', (overrides, field) => {
    expect(eventError({ ...good, ...overrides })).toContain(field);
  });

  it('accepts a null impersonatedUser and null groups, as Go encodes them', () => {
    expect(
      eventError({ ...good, impersonatedUser: null, user: { username: 'a', groups: null } }),
    ).toBeUndefined();
  });
});
