/**
 * One `Warning` response header value as the API server writes them (RFC 7234 section 5.5, as client-go's
 * ParseWarningHeaders reads it): code 299, agent `-`, the text quoted with `"` and `\` escaped by a backslash.
 * Control characters, which the header may not carry, become spaces; text beyond ASCII goes out as its UTF-8
 * bytes (Node.js writes header strings byte per character). Every warning the control plane adds itself is
 * written here; the API server's own are relayed as they came.
 */
export function warningHeader(text: string): string {
  const clean = text.replace(/[\p{Cc}]/gu, ' ');
  const header = `299 - "${clean.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  return Buffer.from(header, 'utf8').toString('latin1');
}
