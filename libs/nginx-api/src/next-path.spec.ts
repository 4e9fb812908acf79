import { describe, expect, it } from 'vitest';
import { safeNextPath } from './next-path.js';

const ORIGIN = 'http://127.0.0.1:3000';

describe('safeNextPath', () => {
  it.each([
    ['/nginxes/a/b?x=1#y', '/nginxes/a/b?x=1#y'],
    ['/audit', '/audit'],
    ['/?namespace=team-a', '/?namespace=team-a'],
    // What the parser makes of it, which is where the browser would go.
    ['/nginxes/./a/../b', '/nginxes/b'],
    ['/nginxes\\a', '/nginxes/a'],
  ])('keeps the same-origin path %j as %j', (next, expected) => {
    expect(safeNextPath(next, ORIGIN)).toBe(expected);
  });

  it.each([
    ['a protocol-relative URL', '//evil.example'],
    ['a backslash read as a slash', '/\\evil.example'],
    // `?next=/%09/evil.example` arrives as a tab, which the parser drops; encoded twice, it stays `%09`.
    ['a tab the parser drops', '/\t/evil.example'],
    ['a line break the parser drops', '/\n/evil.example'],
    ['a tab still encoded', '/%09/evil.example'],
    ['an encoded slash after the first', '/%2F/evil.example'],
    ['an encoded backslash after the first', '/%5Cevil.example'],
    ['a malformed escape', '/%E0%A4%A'],
    ['an absolute URL', 'https://evil.example/'],
    ['an absolute URL to this very origin', `${ORIGIN}/audit`],
    ['a script URL', 'javascript:alert(1)'],
    ['a scheme-relative http URL', 'http:evil.example'],
    ['leading whitespace', ' /x'],
    ['an encoded protocol-relative URL', '%2F%2Fevil.example'],
    ['a path that normalises to two slashes', '/.//evil.example'],
    ['the sign-in page itself', '/sign-in?next=/audit'],
    ['an empty value', ''],
    ['a missing value', null],
    ['an absent value', undefined],
  ])('sends %s (%j) to /', (_, next) => {
    expect(safeNextPath(next, ORIGIN)).toBe('/');
  });

  it('never returns anything but a path on the origin', () => {
    for (const next of ['//evil.example', '/\\evil.example', '/\t/evil.example', '/.//evil.example', '/x'])
      expect(new URL(safeNextPath(next, ORIGIN), ORIGIN).origin).toBe(ORIGIN);
  });
});
