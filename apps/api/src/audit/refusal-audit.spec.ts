import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import type { AuditTrail } from './audit-trail.service.js';
import { maskSecrets, REFUSAL_MESSAGE_MAX, RefusalAudit, refusalRow } from './refusal-audit.js';

const JWT =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJhbGljZSIsImF1ZCI6Im5naW54In0.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU';
const STATIC = 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
const AT = new Date('2026-11-29T10:00:00Z');

describe('maskSecrets', () => {
  it.each([
    ['a JWT', `the token ${JWT} has expired`, JWT],
    ['a bearer credential', 'Authorization: Bearer s3cr3t-token was refused', 's3cr3t-token'],
    ['a session credential', 'Session abcdef123 is unknown', 'abcdef123'],
    [
      'an authorization code',
      '/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj',
      'SplxlOBeZQQYbYS6WxSbIA',
    ],
    ['a state', 'state=af0ifjsldkj was replayed', 'af0ifjsldkj'],
    ['a session cookie', 'cookie __Host-ngx-session=0123abcd; Path=/', '0123abcd'],
    ['a long opaque token', `token ${STATIC} is not known`, STATIC],
  ])('masks %s', (_, message, secret) => {
    expect(maskSecrets(message)).not.toContain(secret);
  });

  it('leaves a plain message as it is', () => {
    const message =
      'viewer (role viewer) may not PATCH /apis/mycompany.com/v1/namespaces/default/nginxes/web: needs editor';
    expect(maskSecrets(message)).toBe(message);
  });
});

describe('refusalRow', () => {
  it('stores no secret, a bounded message, and an empty subject when there is none', () => {
    const row = refusalRow(
      {
        door: 'rest',
        code: 401,
        reason: 'bad-token',
        address: '10.0.0.9',
        message: `Unauthorized: ${JWT} ${'x'.repeat(2_000)}`,
      },
      AT,
    );
    expect(JSON.stringify(row)).not.toContain(JWT);
    expect(row.message.length).toBeLessThanOrEqual(REFUSAL_MESSAGE_MAX);
    expect(row).toMatchObject({
      at: AT,
      door: 'rest',
      code: 401,
      reason: 'bad-token',
      subject: '',
      address: '10.0.0.9',
    });
  });

  it('names an unknown address and bounds a long subject', () => {
    const row = refusalRow(
      {
        door: 'live',
        code: 403,
        reason: 'no-grant',
        subject: 'a'.repeat(400),
        address: undefined,
        message: 'no',
      },
      AT,
    );
    expect(row.address).toBe('unknown');
    expect(row.subject.length).toBeLessThanOrEqual(253);
  });
});

describe('RefusalAudit', () => {
  it('counts each refusal by door and code and hands it to the audit trail', async () => {
    const registry = new Registry();
    const trail = { refusal: vi.fn() };
    const audit = new RefusalAudit(trail as unknown as AuditTrail, registry);
    audit.record({
      door: 'sign-in',
      code: 503,
      reason: 'provider-unavailable',
      address: '::1',
      message: 'down',
    });
    audit.record({
      door: 'sign-in',
      code: 503,
      reason: 'provider-unavailable',
      address: '::1',
      message: 'down',
    });
    expect(trail.refusal).toHaveBeenCalledTimes(2);
    expect(trail.refusal.mock.calls[0]![0]).toMatchObject({ door: 'sign-in', code: 503, address: '::1' });
    const metrics = await registry.getSingleMetricAsString('nginx_access_refusals_total');
    expect(metrics).toContain('nginx_access_refusals_total{door="sign-in",code="503"} 2');
  });
});
