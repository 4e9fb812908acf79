import { linkedSignal } from './abort-scope.js';
import { isApiError, isServerError } from './api-error.js';
import { Fenced, type KubeRequest, type KubeRequester } from './client.js';
import { realClock, type Clock } from './clock.js';
import { LeadershipEnded } from './leader-election.js';
import { sleep } from './token-bucket.js';

export interface FencedClientOptions {
  /**
   * The moment, on `clock`, after which nothing may be sent even though `term` has not aborted yet: for a
   * leadership term, the start of its last successful renewal plus the renew deadline. It is read right before
   * each request leaves (KubeRequest.sendBy), so a timer that a busy event loop runs late cannot stretch it.
   */
  heldUntil?: () => number;
  /**
   * kube-apiserver's deadline for each write, sent as the request's `timeout` parameter and counted from the
   * moment the server received it. Past it the server stops the write: its storage call is cancelled, and only
   * a transaction etcd had already accepted can still commit. So a write's outcome is decided within this long
   * of its arrival, whether or not its answer ever reaches us. Default 5 s; the client waits 1 s longer.
   */
  writeDeadlineMs?: number;
  /** Makes the Audit-ID (KubeRequest.auditId) of each write that names none, so kube-apiserver's audit tells them. */
  auditId?: () => string;
  clock?: Clock;
}

/** What became of a scope's writes, once it went quiet. */
export interface SettledWrites {
  /** Writes sent whose outcome was never learned (no answer, or a 5xx): each was waited out to its deadline. */
  undecided: number;
}

/**
 * Whether a request failed because its term stopped rather than because the server refused it: never sent (the
 * term had ended, or `heldUntil` had passed) or aborted on the wire (a read when the term ended). A term's
 * signal aborts with a LeadershipEnded, which every request of the term then rejects with.
 */
export function endedWithTerm(error: unknown): error is Fenced | LeadershipEnded {
  return error instanceof Fenced || error instanceof LeadershipEnded;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** How much longer than the server's deadline the client waits for a write's answer. */
const ANSWER_MARGIN_MS = 1000;

/**
 * The client of one leadership term (or any scope that must stop writing at a known moment). Guarantees:
 * - nothing is sent once `term` has aborted or `heldUntil` has passed — not even a request that was waiting for
 *   the QPS limit: it rejects with the term's reason, or with `Fenced`;
 * - a write once sent is never aborted because the term ended: it runs to its answer, bounded by the server-side
 *   deadline it carries (`writeDeadlineMs`), so that its outcome is known. Reads on the wire are aborted when the
 *   term ends: nothing depends on them any more;
 * - `settled()` resolves once nothing is in flight and every write whose outcome stayed unknown (no answer, or a
 *   5xx that does not say whether it was stored) is past its server deadline. From then on nothing this client
 *   sent can still change the cluster, and after the term, it sends nothing more, ever.
 * A successor that reads the cluster consistently after that moment therefore sees every write of this term.
 */
export class FencedClient implements KubeRequester {
  private readonly readsCut = new AbortController();
  private readonly clock: Clock;
  private readonly writeDeadlineMs: number;
  private inFlight = 0;
  private undecided = 0;
  /** When the last write of unknown outcome is past its server deadline. */
  private undecidedUntil = -Infinity;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly client: KubeRequester,
    readonly term: AbortSignal,
    private readonly options: FencedClientOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.writeDeadlineMs = options.writeDeadlineMs ?? 5000;
    const cutReads = () => this.readsCut.abort(term.reason);
    if (term.aborted) cutReads();
    else term.addEventListener('abort', cutReads, { once: true });
  }

  /** Requests sent and not yet answered. */
  get pending(): number {
    return this.inFlight;
  }

  async request<T>(req: KubeRequest): Promise<T> {
    this.term.throwIfAborted();
    const write = WRITES.has(req.method ?? 'GET');
    this.inFlight += 1;
    // Per-request links to the term's long-lived signals, undone when the request is done.
    const signal = write ? undefined : linkedSignal(req.signal, this.readsCut.signal);
    const fence = req.fence ? linkedSignal(req.fence, this.term) : undefined;
    const { heldUntil } = this.options;
    try {
      return await this.client.request<T>({
        ...req,
        signal: write ? req.signal : signal!.signal,
        fence: fence?.signal ?? this.term,
        sendBy:
          heldUntil && req.sendBy ? () => Math.min(heldUntil(), req.sendBy!()) : (heldUntil ?? req.sendBy),
        ...(write && {
          query: { ...req.query, timeout: `${this.writeDeadlineMs}ms` },
          timeoutMs: this.writeDeadlineMs + ANSWER_MARGIN_MS,
          auditId: req.auditId ?? this.options.auditId?.(),
        }),
      });
    } catch (error) {
      if (write && !this.definitelyNotStored(error)) {
        this.undecided += 1;
        this.undecidedUntil = Math.max(this.undecidedUntil, this.clock.now() + this.writeDeadlineMs);
      }
      throw error;
    } finally {
      signal?.dispose();
      fence?.dispose();
      this.inFlight -= 1;
      if (this.inFlight === 0) this.wakeIdle();
    }
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves once no request is in flight and every write of unknown outcome is past its server deadline (see
   * the class). Meant for after the term ended; until then, new requests keep it waiting.
   */
  async settled(): Promise<SettledWrites> {
    for (;;) {
      await this.idle();
      const wait = this.undecidedUntil - this.clock.now();
      if (wait <= 0 && this.inFlight === 0) return { undecided: this.undecided };
      if (wait > 0) await sleep(wait, this.clock);
    }
  }

  /**
   * A refusal that says the write was not stored: a 4xx answer, or a request that was never sent (fenced). A
   * 5xx, a timeout or a broken connection leaves it open whether kube-apiserver stored it.
   */
  private definitelyNotStored(error: unknown): boolean {
    if (isApiError(error)) return !isServerError(error);
    return error instanceof Fenced || (this.term.aborted && error === this.term.reason);
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
