import { describe, expect, it } from 'vitest';
import { warningHeader } from './warning-header.js';

/** The warn-text of a header as RFC 7234's quoted-string grammar reads it (what client-go's parser does). */
function parsedText(header: string): string {
  header = Buffer.from(header, 'latin1').toString('utf8');
  const match = /^299 - "((?:[^"\\]|\\.)*)"$/u.exec(header);
  if (!match) throw new Error(`not one quoted warning: ${header}`);
  return match[1]!.replace(/\\(.)/gu, '$1');
}

describe('warningHeader', () => {
  it('quotes the text, escaping inner quotes and backslashes, so a parser reads it back whole', () => {
    const text = 'fieldManager "x" replaced by "admin" \\ not really';
    const header = warningHeader(text);
    expect(header).toBe('299 - "fieldManager \\"x\\" replaced by \\"admin\\" \\\\ not really"');
    expect(parsedText(header)).toBe(text);
  });

  it('turns control characters into spaces (a header cannot carry them)', () => {
    expect(warningHeader('one\r\ntwo\u0000')).toBe('299 - "one  two "');
  });

  it('sends text outside ASCII as its UTF-8 bytes, as the API server does', () => {
    expect(parsedText(warningHeader('nginx “web” — ok'))).toBe('nginx “web” — ok');
  });
});
