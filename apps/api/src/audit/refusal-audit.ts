import { Inject, Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { RefusalRecorder, type Refusal } from '../auth/refusal-recorder.js';
import { AuditTrail } from './audit-trail.service.js';
import type { TalliedRefusal } from './refusal-tally.js';

/** Bounds of what one refusal stores: its example message, who, and from where (characters). */
export const REFUSAL_MESSAGE_MAX = 512;
const SUBJECT_MAX = 253;
const ADDRESS_MAX = 64;

/** A JWT (ID token, ServiceAccount token): three base64url parts, the first a JSON header. */
const JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;
/** The credential after an Authorization scheme. */
const SCHEMED = /\b(Bearer|Basic|Session)\s+\S+/gi;
/** A secret handed as a parameter or cookie: code, state, tokens, session ids. */
const NAMED =
  /\b(code|state|nonce|token|id_token|access_token|refresh_token|session|[\w-]*session[\w-]*)=[^&;\s]+/gi;
/** A long opaque run (a static token, a session id, a code): no word of a message is this long. */
const OPAQUE = /[A-Za-z0-9_+=~-]{32,}/g;

/**
 * `text` with anything that may be a credential masked: JWTs, `Bearer …`, `code=…`-like parameters, and any run of
 * 32 or more token characters. The refusing places pass messages that name no secret; this is the second line.
 */
export function maskSecrets(text: string): string {
  return text
    .replace(JWT, '[token]')
    .replace(SCHEMED, '$1 [redacted]')
    .replace(NAMED, (match) => `${match.slice(0, match.indexOf('='))}=[redacted]`)
    .replace(OPAQUE, '[redacted]');
}

/** A refusal as the audit counts it: secrets masked, text bounded, empty subject when none. */
export function refusalRow(refusal: Refusal, at: Date): TalliedRefusal {
  return {
    at,
    door: refusal.door,
    code: refusal.code,
    reason: refusal.reason,
    subject: bounded(maskSecrets(refusal.subject ?? ''), SUBJECT_MAX),
    address: bounded(refusal.address ?? 'unknown', ADDRESS_MAX),
    message: bounded(maskSecrets(refusal.message), REFUSAL_MESSAGE_MAX),
  };
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The audit's RefusalRecorder: each refusal counted in `nginx_access_refusals_total{door,code}` and, folded with
 * others of its minute and key, in the audit's RefusalCount table (through AuditTrail's background writer, so an
 * audit database that is slow or away costs a request nothing). Never throws.
 */
@Injectable()
export class RefusalAudit extends RefusalRecorder {
  private readonly refusals: Counter<'door' | 'code'>;

  constructor(
    @Inject(AuditTrail) private readonly trail: AuditTrail,
    @Inject(Registry) registry: Registry,
  ) {
    super();
    this.refusals = new Counter({
      name: 'nginx_access_refusals_total',
      help: 'Requests refused for their authentication or authorization (401, 403, refused sign-ins and live handshakes, 503 when the provider or the cluster could not be asked), by door and code.',
      labelNames: ['door', 'code'],
      registers: [registry],
    });
  }

  record(refusal: Refusal): void {
    this.refusals.inc({ door: refusal.door, code: String(refusal.code) });
    this.trail.refusal(refusalRow(refusal, new Date()));
  }
}
