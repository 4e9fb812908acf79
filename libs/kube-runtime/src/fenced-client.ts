import { linkedSignal } from './abort-scope.js';
import type { KubeRequest, KubeRequester } from './client.js';
import { realClock, type Clock, type Timer } from './clock.js';
import type { KubeObject } from './object.js';

export interface FencedClientOptions {
  /** How long a request already on the wire when the term ends may take to finish before it is aborted. */
  graceMs?: number;
  /** Receives the answer of every write (POST, PUT, PATCH, DELETE) that succeeded during the term. */
  onWrite?: (written: KubeObject) => void;
  clock?: Clock;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The client of one leadership term (or any scope that must stop writing at a known moment). Once `term` aborts:
 * - a request not yet sent is never sent: it rejects with the term's reason, even one waiting for the QPS limit;
 * - a request already on the wire has `graceMs` to finish, then it is aborted;
 * - `idle()` resolves once nothing is in flight — from then on this client sends nothing, ever.
 * Letting requests on the wire finish (rather than cutting them at once) means their outcome is known, so the
 * term can tell its successor exactly what it wrote; the grace bounds how long that may take.
 */
export class FencedClient implements KubeRequester {
  private readonly hard = new AbortController();
  private readonly clock: Clock;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private graceTimer: Timer | undefined;

  constructor(
    private readonly client: KubeRequester,
    readonly term: AbortSignal,
    private readonly options: FencedClientOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    const endTerm = () => {
      if (this.inFlight === 0) this.hard.abort(term.reason);
      else this.graceTimer = this.clock.setTimer(() => this.hard.abort(term.reason), options.graceMs ?? 2000);
    };
    if (term.aborted) endTerm();
    else term.addEventListener('abort', endTerm, { once: true });
  }

  /** Requests sent and not yet answered. */
  get pending(): number {
    return this.inFlight;
  }

  async request<T>(req: KubeRequest): Promise<T> {
    this.term.throwIfAborted();
    this.inFlight += 1;
    // Per-request links to the term's long-lived signals, undone when the request is done.
    const signal = req.signal ? linkedSignal(req.signal, this.hard.signal) : undefined;
    const fence = req.fence ? linkedSignal(req.fence, this.term) : undefined;
    try {
      const answer = await this.client.request<T>({
        ...req,
        signal: signal?.signal ?? this.hard.signal,
        fence: fence?.signal ?? this.term,
      });
      if (WRITES.has(req.method ?? 'GET') && answer && typeof answer === 'object')
        this.options.onWrite?.(answer as KubeObject);
      return answer;
    } finally {
      signal?.dispose();
      fence?.dispose();
      this.inFlight -= 1;
      if (this.inFlight === 0) this.settle();
    }
  }

  /** Resolves once no request is in flight (after the term ended: once this client has gone quiet for good). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settle(): void {
    if (this.term.aborted) {
      this.graceTimer?.cancel();
      this.hard.abort(this.term.reason);
    }
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
