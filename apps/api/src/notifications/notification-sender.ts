import { answerResult, retryDelayMs, type AttemptResult } from './delivery-policy.js';
import { signature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';

/** One message to one receiver, decided and recorded: the sender only carries it. */
export interface Delivery {
  /** The event's key and the receiver's name: what receivers may deduplicate by (X-Ngx-Delivery). */
  id: string;
  receiver: string;
  event: string;
  /** The Nginx it is about. */
  namespace: string;
  nginx: string;
  url: string;
  /** The raw JSON body, signed as sent. */
  body: string;
  /** The HMAC key, for webhooks that have one. */
  secret?: string;
  timeoutMs: number;
  attempts: number;
}

export interface SenderOptions {
  /** Deliveries in flight at once; the rest wait their turn. */
  concurrency: number;
  /** Most deliveries waiting; one more is given up at once (never a reconcile's memory or time). */
  queueLimit: number;
  retryBaseMs: number;
  retryMaxMs: number;
  onSent: (delivery: Delivery, attempts: number) => void;
  onGivenUp: (delivery: Delivery, attempts: number, reason: string) => void;
  fetch?: typeof fetch;
  now?: () => number;
}

/**
 * Carries deliveries to their receivers on its own: `send` queues and returns at once, so a dead, slow or failing
 * receiver costs nobody else time. Each attempt has the receiver's deadline; a failure worth retrying is tried
 * again after an exponential backoff, up to the receiver's attempts, then given up (onGivenUp).
 */
export class NotificationSender {
  private readonly waiting: { delivery: Delivery; attempt: number }[] = [];
  private inFlight = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idle: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly options: SenderOptions) {}

  /** Queues `delivery` (never waits, never throws). */
  send(delivery: Delivery): void {
    if (this.stopped) return;
    if (this.waiting.length >= this.options.queueLimit) {
      this.options.onGivenUp(delivery, 0, `the notification queue is full (${this.options.queueLimit})`);
      return;
    }
    this.waiting.push({ delivery, attempt: 1 });
    this.next();
  }

  /** Deliveries queued, in flight or waiting to retry. */
  get pending(): number {
    return this.waiting.length + this.inFlight + this.timers.size;
  }

  /** Resolves once nothing is pending, or after `ms`; then drops what is left (stays recorded as pending). */
  async stop(ms: number): Promise<void> {
    if (this.pending > 0)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiting.length = 0;
  }

  private next(): void {
    while (this.inFlight < this.options.concurrency && this.waiting.length > 0) {
      const { delivery, attempt } = this.waiting.shift()!;
      this.inFlight++;
      void this.attempt(delivery)
        .then((result) => this.settle(delivery, attempt, result))
        .finally(() => {
          this.inFlight--;
          this.next();
          if (this.pending === 0) for (const done of this.idle.splice(0)) done();
        });
    }
  }

  private settle(delivery: Delivery, attempt: number, result: AttemptResult): void {
    if (result.ok) return this.options.onSent(delivery, attempt);
    if (!result.retry || attempt >= delivery.attempts || this.stopped)
      return this.options.onGivenUp(delivery, attempt, result.reason);
    const delay = retryDelayMs(attempt, this.options.retryBaseMs, this.options.retryMaxMs, Math.random());
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.waiting.push({ delivery, attempt: attempt + 1 });
      this.next();
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private async attempt(delivery: Delivery): Promise<AttemptResult> {
    const now = this.options.now ?? Date.now;
    const timestamp = Math.floor(now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'nginx-control-plane-notifications',
      'x-ngx-delivery': delivery.id,
      'x-ngx-event': delivery.event,
    };
    if (delivery.secret !== undefined) {
      headers[TIMESTAMP_HEADER] = String(timestamp);
      headers[SIGNATURE_HEADER] = signature(delivery.secret, timestamp, delivery.body);
    }
    try {
      const answer = await (this.options.fetch ?? fetch)(delivery.url, {
        method: 'POST',
        headers,
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(delivery.timeoutMs),
      });
      await answer.body?.cancel().catch(() => undefined);
      return answerResult(answer.status, answer.headers.get('location'));
    } catch (error) {
      const reason =
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer within ${delivery.timeoutMs / 1000} s`
          : `unreachable: ${causeOf(error)}`;
      return { ok: false, retry: true, reason };
    }
  }
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
