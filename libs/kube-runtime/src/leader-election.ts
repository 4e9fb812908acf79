import type { V1Lease } from '@kubernetes/client-node';
import { linkedSignal } from './abort-scope.js';
import { ignoreNotFound, isConflict } from './api-error.js';
import type { KubeRequester } from './client.js';
import { realClock, type Clock } from './clock.js';
import { silentLogger, type RuntimeLogger } from './logger.js';
import { collectionPath, objectPath, type ResourceRef } from './resource.js';
import { sleep } from './token-bucket.js';

/** One leadership term, as handed to `onStartedLeading`. */
export interface LeadershipTerm {
  /**
   * Aborts, with a LeadershipEnded, when the term ends: the elector stops, a renewal failed past the renew
   * deadline, or another holder was seen. Everything the leader does should carry it (see FencedClient).
   */
  signal: AbortSignal;
  /**
   * The moment, on the elector's clock, until which this term may act: the start of its last successful renewal
   * (or of the acquisition) plus the renew deadline. The term ends there at the latest, but its signal aborts
   * from a timer that a busy event loop may run late; a writer that reads this right before each request (see
   * FencedClient) never sends past it.
   */
  heldUntil: () => number;
}

/** Why a term ended. */
export type TermEnd = 'stopped' | 'lost' | 'work-ended';

export interface LeaderElectionOptions {
  client: KubeRequester;
  namespace: string;
  /** The Lease's name: one per controller that must have a single active instance. */
  name: string;
  /** This instance's identity, unique among the candidates (e.g. hostname + pid). */
  identity: string;
  /** How long a lease holds without renewal before others may take it. */
  leaseDurationMs?: number;
  /**
   * The leader steps down when it has not renewed for this long, counted from the start of its last successful
   * renewal; each renewal request is aborted at that moment. Must be shorter than the lease duration, so the
   * leader stops before any other candidate may take over.
   */
  renewDeadlineMs?: number;
  /** How often candidates try to acquire and the leader renews. */
  retryPeriodMs?: number;
  /**
   * The term's work. The elector awaits it after the term ends, before it releases the Lease or campaigns again:
   * a new term never starts while the last one is draining. If it settles while the term is still running, the
   * instance steps down (releases the Lease) and campaigns again after a retry period.
   */
  onStartedLeading: (term: LeadershipTerm) => void | Promise<void>;
  /** Called once the term's work has settled, before the Lease is released. */
  onStoppedLeading?: (why: TermEnd) => void;
  onNewLeader?: (identity: string) => void;
  /**
   * Longest the elector waits for a term's work to settle (default: the renew deadline). Work that has not
   * settled by then may still write, so the Lease is then not released: it is left to expire.
   */
  drainTimeoutMs?: number;
  logger?: RuntimeLogger;
  clock?: Clock;
}

const LEASES: ResourceRef = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
const microTime = (date: Date) => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** The term's end, as the reason its signal aborts with. */
export class LeadershipEnded extends Error {
  override name = 'LeadershipEnded';

  constructor(readonly why: TermEnd) {
    super(`leadership term ended (${why})`);
  }
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules and a stricter end of term:
 * - a candidate takes a held Lease only when it has seen the holder's record unchanged for the record's own
 *   `leaseDurationSeconds`, measured on its own clock (clock skew between machines does not matter);
 * - the leader renews every retry period; every renewal request is aborted at the renew deadline, and the term
 *   ends then — before the Lease can expire for anyone else — or at once when another holder is seen;
 * - a term ends before anything else happens: its signal aborts, its work is awaited, and only then is the
 *   Lease released (on a graceful stop, once the work settled: it says so by settling) or campaigned for again.
 *   A successor taking a released Lease therefore starts after every write of the term was decided.
 * Updates carry the Lease's resourceVersion, so two candidates never both win one round.
 */
export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly logger: RuntimeLogger;
  /** The holder's record as last seen, when it last changed (on our clock), and how long it holds. */
  private observed = { record: '', at: 0, durationMs: 0 };
  private leader = false;
  private knownLeader = '';
  /** When the current term's last successful renewal (or its acquisition) started, on our clock. */
  private renewedAt = -Infinity;

  constructor(private readonly options: LeaderElectionOptions) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (this.renewDeadlineMs >= this.leaseDurationMs)
      throw new RangeError('renewDeadline must be shorter than leaseDuration');
    if (this.retryPeriodMs >= this.renewDeadlineMs)
      throw new RangeError('retryPeriod must be shorter than renewDeadline');
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
  }

  /** True from acquiring the Lease until the term ends (not while its work drains). */
  isLeader(): boolean {
    return this.leader;
  }

  /**
   * Campaigns until leading, leads until the term ends, then campaigns again; resolves when `signal` aborts,
   * after the last term's work settled and the Lease was released.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      this.leader = true;
      this.logger.info('became leader', { lease: this.leaseName, identity: this.options.identity });
      let workEnded = false;
      const work = Promise.resolve()
        .then(() =>
          this.options.onStartedLeading({
            signal: leading.signal,
            heldUntil: () => (leading.signal.aborted ? -Infinity : this.renewedAt + this.renewDeadlineMs),
          }),
        )
        .catch((error: unknown) =>
          this.logger.error('the leader’s work failed', { error: (error as Error).message }),
        )
        .finally(() => (workEnded = true));
      const why = await this.renewUntilEnd(signal, work, () => workEnded);
      this.leader = false;
      leading.abort(new LeadershipEnded(why));
      const settled = await this.drain(work);
      this.options.onStoppedLeading?.(why);
      if (why === 'lost') {
        this.logger.warn('lost leadership', { lease: this.leaseName, identity: this.options.identity });
        continue;
      }
      if (settled) await this.release();
      else
        this.logger.warn('not releasing the lease: the term’s work may still write; it expires instead', {
          lease: this.leaseName,
        });
      if (why === 'work-ended' && !signal.aborted)
        await sleep(this.retryPeriodMs, this.clock, signal).catch(() => {});
    }
  }

  private get leaseName(): string {
    return `${this.options.namespace}/${this.options.name}`;
  }

  /** Campaigns until it holds the Lease (true), or until stopped (false). */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      const startedAt = this.clock.now();
      const attempt = this.bounded(signal, this.renewDeadlineMs);
      try {
        if (await this.tryAcquireOrRenew(attempt.signal)) {
          this.renewedAt = startedAt;
          return true;
        }
      } finally {
        attempt.clear();
      }
      await sleep(this.retryPeriodMs * (1 + 0.2 * Math.random()), this.clock, signal).catch(() => {});
    }
    return false;
  }

  /** Renews every retry period until the elector stops, the work settles, or the Lease is lost. */
  private async renewUntilEnd(
    signal: AbortSignal,
    work: Promise<unknown>,
    workEnded: () => boolean,
  ): Promise<TermEnd> {
    const workDone = new AbortController();
    void work.then(() => workDone.abort());
    const term = linkedSignal(signal, workDone.signal);
    try {
      return await this.renewals(signal, term.signal, workEnded);
    } finally {
      term.dispose();
    }
  }

  private async renewals(
    signal: AbortSignal,
    waiting: AbortSignal,
    workEnded: () => boolean,
  ): Promise<TermEnd> {
    for (;;) {
      await sleep(this.retryPeriodMs, this.clock, waiting).catch(() => {});
      if (signal.aborted) return 'stopped';
      if (workEnded()) return 'work-ended';
      const startedAt = this.clock.now();
      const remaining = this.renewedAt + this.renewDeadlineMs - startedAt;
      const attempt = this.bounded(waiting, remaining);
      let result: boolean;
      try {
        result = await this.tryAcquireOrRenew(attempt.signal);
      } finally {
        attempt.clear();
      }
      if (signal.aborted) return 'stopped';
      if (result) this.renewedAt = startedAt;
      else if (this.observedOtherHolder()) return 'lost';
      else if (this.clock.now() - this.renewedAt >= this.renewDeadlineMs) return 'lost';
    }
  }

  /** `signal`, also aborted after `ms` (at once if `ms` ≤ 0). `clear` stops the timer and unlinks it. */
  private bounded(signal: AbortSignal, ms: number): { signal: AbortSignal; clear: () => void } {
    const scope = linkedSignal(signal);
    const expire = () =>
      scope.abort(new DOMException('lease request past the renew deadline', 'TimeoutError'));
    if (ms <= 0) expire();
    const timer = ms > 0 ? this.clock.setTimer(expire, ms) : undefined;
    return {
      signal: scope.signal,
      clear: () => {
        timer?.cancel();
        scope.dispose();
      },
    };
  }

  private observedOtherHolder(): boolean {
    return this.knownLeader !== '' && this.knownLeader !== this.options.identity;
  }

  /** Waits for the term's work, at most `drainTimeoutMs`; true when it settled in time. */
  private async drain(work: Promise<unknown>): Promise<boolean> {
    const limit = this.options.drainTimeoutMs ?? this.renewDeadlineMs;
    const timeout = new AbortController();
    const timedOut = sleep(limit, this.clock, timeout.signal).then(
      () => true,
      () => false,
    );
    const late = await Promise.race([work.then(() => false), timedOut]);
    timeout.abort();
    if (late) this.logger.error('the term’s work did not settle in time; going on without it', { ms: limit });
    return !late;
  }

  /** One round: resolves true when this instance holds the Lease after it. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { client, namespace, name, identity } = this.options;
    const path = objectPath({ ...LEASES, namespace }, name);
    const now = new Date();
    const durationSeconds = Math.round(this.leaseDurationMs / 1000);
    try {
      let lease: V1Lease;
      try {
        lease = await client.request<V1Lease>({ priority: 'exempt', path, signal });
      } catch (error) {
        ignoreNotFound(error);
        const created = await client.request<V1Lease>({
          priority: 'exempt',
          method: 'POST',
          path: collectionPath({ ...LEASES, namespace }),
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: microTime(now),
              renewTime: microTime(now),
              leaseTransitions: 0,
            },
          },
          signal,
        });
        this.observe(created);
        return true;
      }

      this.observe(lease);
      const holder = lease.spec?.holderIdentity ?? '';
      const heldByOther = holder !== '' && holder !== identity;
      if (heldByOther && this.observed.at + this.observed.durationMs > this.clock.now()) return false;

      const spec = lease.spec ?? {};
      const updated = await client.request<V1Lease>({
        priority: 'exempt',
        method: 'PUT',
        path,
        body: {
          ...lease,
          spec: {
            ...spec,
            holderIdentity: identity,
            leaseDurationSeconds: durationSeconds,
            renewTime: microTime(now),
            acquireTime: holder === identity && spec.acquireTime ? spec.acquireTime : microTime(now),
            leaseTransitions: (spec.leaseTransitions ?? 0) + (holder === identity ? 0 : 1),
          },
        },
        signal,
      });
      this.observe(updated);
      return true;
    } catch (error) {
      if (!isConflict(error)) {
        this.logger.warn('lease request failed', { lease: this.leaseName, error: (error as Error).message });
      }
      return false;
    }
  }

  /** Remembers when this instance last saw the lease record change, on its own clock, and for how long it holds. */
  private observe(lease: V1Lease): void {
    const record = JSON.stringify([
      lease.spec?.holderIdentity,
      lease.spec?.renewTime,
      lease.spec?.leaseTransitions,
    ]);
    const durationMs = (lease.spec?.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
    if (record !== this.observed.record) this.observed = { record, at: this.clock.now(), durationMs };
    else this.observed.durationMs = durationMs;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.knownLeader) {
      this.knownLeader = holder;
      if (holder) this.options.onNewLeader?.(holder);
    }
  }

  /**
   * Gives the Lease up (holder cleared, 1 s duration) so a successor can take it at once. Reads it fresh first: a
   * renewal cut short may still have landed and moved its resourceVersion. Bounded by the renew deadline.
   */
  private async release(): Promise<void> {
    const { client, namespace, name, identity } = this.options;
    const path = objectPath({ ...LEASES, namespace }, name);
    const attempt = this.bounded(new AbortController().signal, this.renewDeadlineMs);
    try {
      const lease = await client.request<V1Lease>({ priority: 'exempt', path, signal: attempt.signal });
      if (lease.spec?.holderIdentity !== identity) return;
      const now = microTime(new Date());
      await client.request<V1Lease>({
        priority: 'exempt',
        method: 'PUT',
        path,
        body: {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: '',
            leaseDurationSeconds: 1,
            renewTime: now,
            acquireTime: now,
          },
        },
        signal: attempt.signal,
      });
      this.knownLeader = '';
      this.logger.info('released the lease', { lease: this.leaseName });
    } catch (error) {
      this.logger.warn('could not release the lease', {
        lease: this.leaseName,
        error: (error as Error).message,
      });
    } finally {
      attempt.clear();
    }
  }
}
