import { describe, expect, it } from 'vitest';
import { reportsSecretNotFound, secretCheckDue, secretNotFound, secretsMounted } from './tls-secret.js';

describe('secretNotFound', () => {
  it('says no pod is created while none runs', () => {
    expect(secretNotFound('ns', 'web-tls')).toEqual({
      reason: 'SecretNotFound',
      message:
        'Secret web-tls (spec.tls.secretName) not found in namespace ns: no pod is created until it exists.',
    });
  });

  it('says running pods keep the certificate they mounted, and new ones wait', () => {
    expect(secretNotFound('ns', 'web-tls', 2).message).toBe(
      'Secret web-tls (spec.tls.secretName) not found in namespace ns: the 2 running pods keep the certificate ' +
        'they mounted; no new pod is created until it exists.',
    );
    expect(secretNotFound('ns', 'web-tls', 1).message).toContain(
      'the 1 running pod keeps the certificate it mounted; no new pod',
    );
  });
});

describe('reportsSecretNotFound', () => {
  const condition = (status: 'True' | 'False', reason: string) => ({
    conditions: [{ type: 'ReplicaFailure', status, reason, message: '' }],
  });

  it('is true only for a true ReplicaFailure/SecretNotFound', () => {
    expect(reportsSecretNotFound(condition('True', 'SecretNotFound') as never)).toBe(true);
    expect(reportsSecretNotFound(condition('False', 'SecretNotFound') as never)).toBe(false);
    expect(reportsSecretNotFound(condition('True', 'FailedCreate') as never)).toBe(false);
    expect(reportsSecretNotFound(undefined)).toBe(false);
    expect(reportsSecretNotFound({})).toBe(false);
  });
});

describe('secretCheckDue', () => {
  const period = 60_000;

  it('looks the first time', () => {
    expect(secretCheckDue(undefined, 1000, period, false)).toBe(true);
  });

  it('does not look twice in one sync (pod creations looked already)', () => {
    expect(secretCheckDue(5000, 5000, period, true)).toBe(false);
    expect(secretCheckDue(5001, 5000, period, false)).toBe(false);
  });

  it('looks once a period while the Secret is there', () => {
    expect(secretCheckDue(0, period - 1, period, false)).toBe(false);
    expect(secretCheckDue(0, period, period, false)).toBe(true);
  });

  it('looks on every sync while the status reports it missing, so the condition clears once it is back', () => {
    expect(secretCheckDue(0, 1, period, true)).toBe(true);
  });
});

describe('secretsMounted', () => {
  it("is spec.tls's Secret for pods of the template, none without spec.tls", () => {
    expect(secretsMounted({ image: 'nginx', port: 80, tls: { secretName: 's' } } as never)).toEqual(['s']);
    expect(secretsMounted({ image: 'nginx', port: 80 } as never)).toEqual([]);
  });
});
