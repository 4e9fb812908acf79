import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The secrets of a browser session (its tokens) and of a sign-in under way (its PKCE verifier and nonce) are kept in
 * the database sealed under a key derived from a random value that only the browser holds (the session cookie, the
 * sign-in cookie); the database keeps that value's digest alone, to find the row. A copy of the database therefore
 * gives neither a session to present nor a token to use.
 */

/** SHA-256, base64url: how a browser-held secret is found in the database without being kept there. */
export function digestOf(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `nginx-control-plane ${purpose}`, 32));
}

/** `value` as JSON, encrypted and authenticated (AES-256-GCM) under a key derived from `secret` for `purpose`. */
export function seal(secret: string, purpose: string, value: unknown): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** What `seal` sealed, with the same secret and purpose; throws when either differs or the text was altered. */
export function unseal<T>(secret: string, purpose: string, sealed: string): T {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret, purpose), bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const body = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  return JSON.parse(body.toString('utf8')) as T;
}

/**
 * The CSRF token of session `sessionId`: an HMAC of a fixed label under the session id. Every replica computes the
 * same one, so nothing is stored for it; a page of another site can neither read it nor derive it (the cookie is
 * HttpOnly), and the token does not reveal the id.
 */
export function csrfTokenOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('nginx-control-plane csrf').digest('base64url');
}
