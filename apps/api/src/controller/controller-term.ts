import type { AnalysisMeasurer } from '../analysis/analysis-run.js';
import { controllerAuditId } from '../audit/request-audit-id.js';
import {
  Backoff,
  Controller,
  EventRecorder,
  Expectations,
  FencedClient,
  RateLimitingQueue,
  consistentResourceVersion,
  errorMessage,
  sleep,
  type KubeClient,
  type LeadershipTerm,
  type RuntimeLogger,
  type SharedInformer,
  type KubeObject,
} from '@ngx/kube-runtime';
import type { ReconcileMetrics } from '../metrics/controller-runtime-metrics.js';
import type { PrometheusWorkQueueMetrics } from '../metrics/runtime-metrics.js';
import type { ControllerInformers } from './controller-informers.js';
import type { OwnEvents } from '../kube/own-events.js';
import { MANAGED_BY } from '@ngx/nginx-api';
import {
  auditedReconcile,
  ReconcileTriggers,
  type AuditedReconcileDeps,
  type ReconcileTrigger,
} from './audited-reconcile.js';
import type { ControllerMetrics } from './controller-metrics.js';
import { NginxReconciler } from './reconciler.js';
import { tracedReconcile } from '../tracing/reconcile-spans.js';
import type { StrayPods } from './stray-pods.js';

/** A cache of this many objects takes a while to relist: its watch gets a chance to catch up first. */
const RELIST_COSTS_FROM = 1000;

export interface ControllerTermDeps {
  client: KubeClient;
  informers: ControllerInformers;
  /** Where each Event the term wrote is told (the timeline keeps them from there). */
  ownEvents: OwnEvents;
  strays: StrayPods;
  audit: AuditedReconcileDeps['audit'];
  identity: string;
  workers: number;
  burst: number;
  resyncPeriodMs: number;
  /** How often an Nginx with spec.tls looks for its Secret while its pods need nothing (TLS_SECRET_RECHECK_SECONDS). */
  tlsRecheckMs?: number;
  /**
   * kube-apiserver's deadline for each of the term's writes (FencedClient): it must end before the Lease can
   * expire for another instance, so it is shorter than the lease duration minus the renew deadline.
   */
  writeDeadlineMs: number;
  /**
   * How long a large cache (RELIST_COSTS_FROM objects or more) may take to pass the consistent read through its
   * watch before it is relisted; a smaller one is relisted at once, which costs less than waiting.
   */
  catchUpPatienceMs: number;
  logger: RuntimeLogger;
  metrics: ControllerMetrics;
  /** controller-runtime's controller_runtime_* metrics of this controller (metrics/controller-runtime-metrics.ts). */
  reconcileMetrics: ReconcileMetrics;
  /** What canary analysis steps measure with; none: each measurement is Inconclusive. */
  analysis?: AnalysisMeasurer;
  queueMetrics: PrometheusWorkQueueMetrics;
  /** Each reconcile the root span of a trace of its own (tracing/reconcile-spans.ts); false: no span. */
  traceReconciles: boolean;
}

/**
 * One leadership term of the Nginx controller. Everything it writes goes through its own FencedClient bound to
 * the term — reconciles, status, Events — so nothing is sent after the term ends or past the renew deadline,
 * and every write sent is decided (answered, or past its server-side deadline) before `run` resolves. Its
 * queue, expectations and Event recorder live and die with it. It acts only once every cache it decides from
 * is as new as a consistent read made after it acquired the Lease (`catchUp`), so no write of an earlier
 * leader, or of its own earlier term, is missing from them.
 */
export class ControllerTerm {
  readonly queue: RateLimitingQueue<string>;
  readonly expectations = new Expectations();
  private readonly triggers = new ReconcileTriggers();
  private readonly client: FencedClient;
  private readonly events: EventRecorder;

  readonly signal: AbortSignal;

  constructor(
    private readonly deps: ControllerTermDeps,
    term: LeadershipTerm,
  ) {
    this.signal = term.signal;
    this.queue = new RateLimitingQueue<string>({ metrics: deps.queueMetrics });
    deps.queueMetrics.watch(this.queue);
    this.client = new FencedClient(deps.client, term.signal, {
      heldUntil: term.heldUntil,
      writeDeadlineMs: deps.writeDeadlineMs,
      auditId: controllerAuditId,
    });
    this.events = new EventRecorder({
      client: this.client,
      component: MANAGED_BY,
      instance: deps.identity,
      logger: deps.logger,
      onWritten: (event, happenedAt) => deps.ownEvents.written(event, happenedAt),
    });
  }

  /** Queues a key for reconciling (after `afterMs`, if given), remembering why for the audit trail. */
  enqueue(key: string, trigger: ReconcileTrigger, afterMs?: number): void {
    if (this.signal.aborted) return;
    this.triggers.note(key, trigger);
    if (afterMs === undefined) this.queue.add(key);
    else this.queue.addAfter(key, afterMs);
  }

  /**
   * Runs the term until its signal aborts: waits for the caches (synced, then caught up with a consistent read),
   * queues every Nginx, reconciles with the workers and resyncs every Nginx each resync period. Resolves once the
   * last reconcile returned and every write of the term is decided: answered, or past its server deadline.
   */
  async run(): Promise<void> {
    const { deps, signal } = this;
    const reconciler = new NginxReconciler({
      client: this.client,
      nginxes: deps.informers.nginxes.cache,
      pods: deps.informers.pods.cache,
      owned: {
        revisions: deps.informers.owned.revisions.cache,
        configMaps: deps.informers.owned.configMaps.cache,
        services: deps.informers.owned.services.cache,
        budgets: deps.informers.owned.budgets.cache,
        endpointSlices: deps.informers.owned.endpointSlices.cache,
        ingresses: deps.informers.owned.ingresses.cache,
      },
      expectations: this.expectations,
      strays: deps.strays,
      events: this.events,
      logger: deps.logger,
      burst: deps.burst,
      ...(deps.tlsRecheckMs !== undefined ? { tlsRecheckMs: deps.tlsRecheckMs } : {}),
      metrics: deps.metrics.podWrites,
      ...(deps.analysis ? { analysis: deps.analysis } : {}),
    });
    const reconcile = auditedReconcile({
      reconcile: (key, report, reconcileSignal, trace) =>
        reconciler.reconcile(key, report, reconcileSignal, trace),
      triggers: this.triggers,
      attempt: (key) => this.queue.numRequeues(key) + 1,
      audit: deps.audit,
      logger: deps.logger,
      instanceId: deps.identity,
    });
    const controller = new Controller({
      name: 'nginx',
      queue: this.queue,
      workers: deps.workers,
      reconcile: deps.traceReconciles ? tracedReconcile(reconcile) : reconcile,
      // Not the quota cache: the quota informer merely wakes refused Nginxes early, and a cluster that does not
      // let us watch quotas should still have its Nginxes reconciled. The owned objects' caches are needed: a
      // revision number or a Service decided from an empty cache would be wrong.
      waitForSync: async (syncSignal) => {
        const caches = [deps.informers.nginxes, deps.informers.pods, ...deps.informers.ownedInformers()];
        const synced = await Promise.all(caches.map((informer) => informer.waitForCacheSync(syncSignal)));
        if (!synced.every(Boolean)) return false;
        if (!(await this.catchUp(caches, syncSignal))) return false;
        this.enqueueAll('resync');
        return true;
      },
      logger: deps.logger,
      metrics: {
        reconciled: (outcome, seconds) => {
          // nginx_reconciles_total kept its four results: a requeue after a while is a requeue there.
          const result = outcome === 'requeue_after' ? 'requeue' : outcome;
          deps.metrics.reconciles.inc({ result });
          deps.metrics.duration.observe({ result }, seconds);
          deps.reconcileMetrics.reconciled(outcome, seconds);
        },
        busyWorkers: deps.reconcileMetrics.busyWorkers,
      },
    });
    const resync = setInterval(() => this.enqueueAll('resync'), deps.resyncPeriodMs);
    resync.unref();
    try {
      await controller.run(signal);
    } finally {
      clearInterval(resync);
      await this.events.flush();
      const { undecided } = await this.client.settled();
      if (undecided > 0)
        deps.logger.warn('the term’s writes of unknown outcome are past their deadline', {
          undecided,
          writeDeadlineMs: deps.writeDeadlineMs,
        });
    }
  }

  private enqueueAll(trigger: ReconcileTrigger): void {
    for (const key of this.deps.informers.nginxes.cache.keys()) this.enqueue(key, trigger);
  }

  /**
   * Brings every cache the reconciler decides from up to a consistent read made now, after this term acquired
   * the Lease: an earlier leader's writes were all decided before it released the Lease, or before the Lease could
   * expire (see FencedClient), so each of them is at or below that version, and a cache that reflects it holds
   * every pod they created or deleted. Retries the read with backoff; false only when the term ended first.
   */
  private async catchUp(caches: SharedInformer<KubeObject>[], signal: AbortSignal): Promise<boolean> {
    const { informers, logger, catchUpPatienceMs } = this.deps;
    const started = performance.now();
    const backoff = new Backoff(100, 5000);
    let version: string | undefined;
    while (version === undefined) {
      try {
        version = await consistentResourceVersion(this.client, informers.pods.resource, signal);
      } catch (error) {
        if (signal.aborted) return false;
        const retryInMs = Math.round(backoff.next());
        logger.warn('the consistent read failed; retrying', { error: errorMessage(error), retryInMs });
        await sleep(retryInMs, undefined, signal).catch(() => {});
      }
    }
    const ways = await Promise.all(
      caches.map((informer) =>
        informer.catchUp(version, {
          patienceMs: informer.cache.size >= RELIST_COSTS_FROM ? catchUpPatienceMs : 0,
          signal,
        }),
      ),
    );
    if (ways.includes(false)) return false;
    logger.info('caches caught up with a consistent read', {
      resourceVersion: version,
      waitedMs: Math.round(performance.now() - started),
      relisted: caches.filter((_, i) => ways[i] === 'relist').map((informer) => informer.resource.plural),
    });
    return true;
  }
}
