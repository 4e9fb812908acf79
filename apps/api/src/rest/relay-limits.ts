import { StatusException } from '../http/kube-status.js';

/**
 * The bounds on what one caller may hold open through the relay (MAX_WATCHES_PER_TOKEN, STALLED_CLIENT_SECONDS);
 * each is documented in docs/security.md. The relay never buffers for a client without limit.
 */
export abstract class RelayLimits {
  /** Watches one token may have open at once (kubectl and the UI use one or two). */
  abstract readonly watchesPerToken: number;
  /** A client that takes nothing from its response for this long, while the relay has data for it, is cut. */
  abstract readonly stallMs: number;
}

/** Longest `timeoutSeconds` a watch may ask for (the API server's own default is 30 to 60 min). */
export const MAX_WATCH_SECONDS = 1800;

/** A `timeoutSeconds` within the bound: larger ones are lowered to it (as a shorter watch is always allowed). */
export function boundedWatchTimeout(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  return String(Math.min(Number(given), MAX_WATCH_SECONDS));
}

/** Counts the watches each token holds open and refuses one past the limit with 429. */
export class WatchSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly perToken: number) {}

  /** Takes a slot for `token`, or throws 429; the returned function gives it back (once). */
  take(token: string): () => void {
    const held = this.open.get(token) ?? 0;
    if (held >= this.perToken)
      throw new StatusException(
        429,
        `${token} already has ${held} watches open, the most one token may: close one first`,
        { retryAfterSeconds: 1 },
        { 'Retry-After': '1' },
      );
    this.open.set(token, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(token) ?? 1) - 1;
      if (left > 0) this.open.set(token, left);
      else this.open.delete(token);
    };
  }

  held(token: string): number {
    return this.open.get(token) ?? 0;
  }
}
