import type { V1Lease } from '@kubernetes/client-node';
import { KubeApiError } from './api-error.js';
import type { KubeClient } from './client.js';
import { realClock, type Clock } from './clock.js';
import { silentLogger, type RuntimeLogger } from './logger.js';
import { collectionPath, objectPath, type ResourceRef } from './resource.js';
import { sleep } from './token-bucket.js';

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  /** The Lease's name: one per controller that must have a single active instance. */
  name: string;
  /** This instance's identity, unique among the candidates (e.g. hostname + pid). */
  identity: string;
  /** How long a lease holds without renewal before others may take it. */
  leaseDurationMs?: number;
  /** The leader gives up if it could not renew for this long; must be shorter than the lease duration. */
  renewDeadlineMs?: number;
  /** How often candidates try to acquire and the leader renews. */
  retryPeriodMs?: number;
  /** Called on becoming leader; `leading` aborts when leadership is lost or the elector stops. */
  onStartedLeading: (leading: AbortSignal) => void;
  onStoppedLeading?: () => void;
  onNewLeader?: (identity: string) => void;
  logger?: RuntimeLogger;
  clock?: Clock;
}

const LEASES: ResourceRef = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
const microTime = (date: Date) => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules: a candidate takes the lease only
 * when it has seen the holder's record unchanged for a whole lease duration (measured on its own clock, so
 * clock skew between machines does not matter); the leader renews every retry period and steps down when it
 * has not renewed within the renew deadline — before any other candidate may take over. Updates use the
 * Lease's resourceVersion, so two candidates can never both win the same round.
 */
export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly logger: RuntimeLogger;
  private observed = { record: '', at: 0 };
  private leader = false;
  private knownLeader = '';

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

  isLeader(): boolean {
    return this.leader;
  }

  /**
   * Campaigns until leading, leads until leadership is lost, then campaigns again; stops when `signal` aborts,
   * releasing the lease if it holds it so a successor need not wait for it to expire.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      this.leader = true;
      this.logger.info('became leader', { lease: this.leaseName, identity: this.options.identity });
      try {
        this.options.onStartedLeading(leading.signal);
      } catch (error) {
        this.logger.error('onStartedLeading threw', { error: (error as Error).message });
      }
      await this.renewUntilLost(signal);
      this.leader = false;
      leading.abort(new Error('leadership lost'));
      this.options.onStoppedLeading?.();
      if (signal.aborted) {
        await this.release();
        return;
      }
      this.logger.warn('lost leadership', { lease: this.leaseName, identity: this.options.identity });
    }
  }

  private get leaseName(): string {
    return `${this.options.namespace}/${this.options.name}`;
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal)) return true;
      await sleep(this.retryPeriodMs * (1 + 0.2 * Math.random()), this.clock, signal).catch(() => {});
    }
    return false;
  }

  private async renewUntilLost(signal: AbortSignal): Promise<void> {
    let lastRenew = this.clock.now();
    while (!signal.aborted) {
      await sleep(this.retryPeriodMs, this.clock, signal).catch(() => {});
      if (signal.aborted) return;
      if (await this.tryAcquireOrRenew(signal)) lastRenew = this.clock.now();
      else if (this.clock.now() - lastRenew >= this.renewDeadlineMs) return;
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { client, namespace, name, identity } = this.options;
    const path = objectPath({ ...LEASES, namespace }, name);
    const now = new Date();
    const durationSeconds = Math.round(this.leaseDurationMs / 1000);
    try {
      let lease: V1Lease;
      try {
        lease = await client.request<V1Lease>({
          priority: 'exempt',
          path,
          signal,
        });
      } catch (error) {
        if (!(error instanceof KubeApiError) || error.code !== 404) throw error;
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
      if (heldByOther && this.observed.at + this.leaseDurationMs > this.clock.now()) return false;

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
      if (!signal.aborted && !(error instanceof KubeApiError && error.code === 409)) {
        this.logger.warn('lease request failed', { lease: this.leaseName, error: (error as Error).message });
      }
      return false;
    }
  }

  /** Remembers when this instance last saw the lease record change, on its own clock. */
  private observe(lease: V1Lease): void {
    const record = JSON.stringify([
      lease.spec?.holderIdentity,
      lease.spec?.renewTime,
      lease.spec?.leaseTransitions,
    ]);
    if (record !== this.observed.record) this.observed = { record, at: this.clock.now() };
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder && holder !== this.knownLeader) {
      this.knownLeader = holder;
      this.options.onNewLeader?.(holder);
    }
  }

  /**
   * Gives the lease up (holder cleared, 1 s duration) so a successor can take it at once. Reads it fresh first:
   * a renewal cut short by the shutdown may still have landed and moved its resourceVersion.
   */
  private async release(): Promise<void> {
    const { client, namespace, name, identity } = this.options;
    const path = objectPath({ ...LEASES, namespace }, name);
    try {
      const lease = await client.request<V1Lease>({
        priority: 'exempt',
        path,
      });
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
      });
      this.logger.info('released the lease', { lease: this.leaseName });
    } catch (error) {
      this.logger.warn('could not release the lease', {
        lease: this.leaseName,
        error: (error as Error).message,
      });
    }
  }
}
