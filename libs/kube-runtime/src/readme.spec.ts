import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

describe('README', () => {
  it('shows the example controller exactly as it is in examples/', () => {
    const readme = read('../README.md');
    const shown = /<!-- example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- example:end -->/.exec(readme)?.[1];
    expect(shown).toBe(read('../examples/label-configmaps.ts'));
  });
});
