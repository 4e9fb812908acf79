import { createHmac } from 'node:crypto';

/** The headers a signed webhook delivery carries (docs/operations.md, "Notifications"). */
export const SIGNATURE_HEADER = 'x-ngx-signature';
export const TIMESTAMP_HEADER = 'x-ngx-timestamp';

/**
 * HMAC-SHA256, keyed with the receiver's secret, over `<timestamp>.<raw body>` (the timestamp as sent in
 * X-Ngx-Timestamp, Unix seconds): `sha256=<hex>`. Signing the timestamp with the body lets a receiver refuse a
 * replayed delivery by its age.
 */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
