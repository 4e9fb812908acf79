import { describe, expect, it } from 'vitest';
import { SpecHistory } from './spec-history.js';

const at = (version: string, replicas: number) => ({
  metadata: { uid: 'u', resourceVersion: version },
  spec: { replicas },
});

describe('SpecHistory', () => {
  it('answers the spec before the write that left a resourceVersion, and the spec of a deleted Nginx', () => {
    const history = new SpecHistory();
    history.saw(at('1', 1), at('2', 2));
    history.saw(at('2', 2), at('3', 5));
    history.saw(at('3', 5), at('3', 5)); // a resync
    expect(history.specBefore('u', '2')).toEqual({ replicas: 1 });
    expect(history.specBefore('u', '3')).toEqual({ replicas: 2 });
    expect(history.specBefore('u', '4')).toBeUndefined();
    history.sawDeleted(at('3', 5));
    expect(history.deletedSpec('u')).toEqual({ replicas: 5 });
  });

  it('forgets the oldest beyond its capacity', () => {
    const history = new SpecHistory(2);
    history.saw(at('1', 1), at('2', 2));
    history.saw(at('2', 2), at('3', 3));
    history.saw(at('3', 3), at('4', 4));
    expect(history.specBefore('u', '2')).toBeUndefined();
    expect(history.specBefore('u', '4')).toEqual({ replicas: 3 });
  });
});
