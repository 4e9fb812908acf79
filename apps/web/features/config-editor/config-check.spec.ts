import { describe, expect, it } from 'vitest';
import { StatusError } from '@/lib/api/api-client';
import { serverAnswerOf } from './config-check';

describe('serverAnswerOf', () => {
  it('puts the causes about spec.config at their lines', () => {
    const refusal = new StatusError(422, 'Invalid', 'invalid', {
      kind: 'Status',
      code: 422,
      details: { causes: [{ field: 'spec.config', message: 'line 2: unknown directive "foo"' }] },
    } as never);
    const answer = serverAnswerOf(refusal);
    expect(answer.error).toBeUndefined();
    expect(answer.problems.length).toBeGreaterThan(0);
  });

  it('says in words a refusal that is not about the config', () => {
    expect(serverAnswerOf(new StatusError(403, 'Forbidden', 'not allowed'))).toEqual({
      problems: [],
      error: 'not allowed',
    });
  });
});
