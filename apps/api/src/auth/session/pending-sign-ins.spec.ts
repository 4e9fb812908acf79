import { describe, expect, it } from 'vitest';
import { PendingSignIns, type PendingSignIn } from './pending-sign-ins.js';

const signIn: PendingSignIn = {
  codeVerifier: 'v',
  nonce: 'n',
  next: '/',
  redirectUri: 'https://cp/callback',
};

describe('PendingSignIns', () => {
  it('gives a sign-in back once, to the browser that started it', () => {
    const pending = new PendingSignIns();
    const browser = pending.add('s1', signIn);
    expect(pending.take('s1', undefined)).toBe('other-browser');
    expect(pending.take('s1', 'someone-else')).toBe('other-browser');
    expect(pending.take('s1', browser)).toEqual(signIn);
    expect(pending.take('s1', browser)).toBe('unknown');
    expect(pending.take('never', browser)).toBe('unknown');
  });

  it('forgets a sign-in after ten minutes', () => {
    let now = 0;
    const pending = new PendingSignIns(() => now);
    const browser = pending.add('s1', signIn);
    now = 10 * 60_000;
    expect(pending.take('s1', browser)).toBe('unknown');
  });
});
