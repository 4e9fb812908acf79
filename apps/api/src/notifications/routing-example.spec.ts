import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRouting } from './routing.js';

describe('deploy/notifications.example.yaml', () => {
  it('loads', () => {
    const file = new URL('../../../../deploy/notifications.example.yaml', import.meta.url);
    expect(parseRouting(readFileSync(file, 'utf8')).routes).toHaveLength(2);
  });
});
