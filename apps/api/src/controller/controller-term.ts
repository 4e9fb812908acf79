import {
  Controller,
  EventRecorder,
  Expectations,
  FencedClient,
  RateLimitingQueue,
  WrittenVersions,
  kindKey,
  type KubeClient,
  type KubeObject,
  type RuntimeLogger,
} from '@ngx/kube-runtime';
import { LABEL_NGINX, NGINX_API_VERSION, NGINX_KIND } from '@ngx/nginx-api';
import type { PrometheusWorkQueueMetrics } from '../metrics/runtime-metrics.js';
import type { ClusterInformers } from '../kube/cluster-informers.js';
import {
  auditedReconcile,
  ReconcileTriggers,
  type AuditedReconcileDeps,
  type ReconcileTrigger,
} from './audited-reconcile.js';
import type { ControllerMetrics } from './controller-metrics.js';
import { MANAGED_BY } from './pod-template.js';
import { NginxReconciler } from './reconciler.js';
import type { StrayPods } from './stray-pods.js';

const POD_KIND = 'Pod';
const NGINX_KIND_KEY = kindKey({ apiVersion: NGINX_API_VERSION, kind: NGINX_KIND })!;

export interface ControllerTermDeps {
  client: KubeClient;
  informers: ClusterInformers;
  strays: StrayPods;
  audit: AuditedReconcileDeps['audit'];
  identity: string;
  workers: number;
  burst: number;
  resyncPeriodMs: number;
  /** How long a request already sent when the term ends may take to finish before it is aborted. */
  graceMs: number;
  /** Longest the term waits for its caches to reach the previous leader's last writes. */
  handoverWaitMs: number;
  logger: RuntimeLogger;
  metrics: ControllerMetrics;
  queueMetrics: PrometheusWorkQueueMetrics;
}

/**
 * One leadership term of the Nginx controller. Everything it writes goes through its own FencedClient bound to
 * the term's signal — reconciles, status, Events — so nothing is written after the term ends and requests on
 * the wire get a short grace. Its queue, expectations and Event recorder live and die with it. It starts acting
 * only once the caches have seen the previous leader's last writes (the hand-over note: the resourceVersions
 * it wrote last, per kind), and it leaves the same note for its successor.
 */
export class ControllerTerm {
  readonly queue: RateLimitingQueue<string>;
  readonly expectations = new Expectations();
  private readonly triggers = new ReconcileTriggers();
  private readonly written = new WrittenVersions();
  private readonly client: FencedClient;
  private readonly events: EventRecorder;

  constructor(
    private readonly deps: ControllerTermDeps,
    readonly signal: AbortSignal,
  ) {
    this.queue = new RateLimitingQueue<string>({ metrics: deps.queueMetrics });
    deps.queueMetrics.watch(this.queue);
    this.client = new FencedClient(deps.client, signal, {
      graceMs: deps.graceMs,
      onWrite: (object) => this.noteWrite(object),
    });
    this.events = new EventRecorder({
      client: this.client,
      component: MANAGED_BY,
      instance: deps.identity,
      logger: deps.logger,
    });
  }

  /** Queues a key for reconciling (after `afterMs`, if given), remembering why for the audit trail. */
  enqueue(key: string, trigger: ReconcileTrigger, afterMs?: number): void {
    if (this.signal.aborted) return;
    this.triggers.note(key, trigger);
    if (afterMs === undefined) this.queue.add(key);
    else this.queue.addAfter(key, afterMs);
  }

  /** The resourceVersions this term wrote last, per kind, for the next leader. */
  handoverNote(): string {
    return this.written.encode();
  }

  /**
   * Runs the term until its signal aborts: waits for the caches (synced, and at the previous leader's writes),
   * queues every Nginx, reconciles with the workers and resyncs every Nginx each resync period. Resolves once the
   * last reconcile returned and the last request of the term was answered or aborted.
   */
  async run(previousNote: string | undefined): Promise<void> {
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
      },
      expectations: this.expectations,
      strays: deps.strays,
      events: this.events,
      logger: deps.logger,
      burst: deps.burst,
      metrics: deps.metrics.reconciler,
    });
    const controller = new Controller({
      name: 'nginx',
      queue: this.queue,
      workers: deps.workers,
      reconcile: auditedReconcile({
        reconcile: (key, report, reconcileSignal) => reconciler.reconcile(key, report, reconcileSignal),
        triggers: this.triggers,
        attempt: (key) => this.queue.numRequeues(key) + 1,
        audit: deps.audit,
        logger: deps.logger,
        instanceId: deps.identity,
      }),
      // Not the quota cache: the quota informer merely wakes refused Nginxes early, and a cluster that does not
      // let us watch quotas should still have its Nginxes reconciled. The owned objects' caches are needed: a
      // revision number or a Service decided from an empty cache would be wrong.
      waitForSync: async (syncSignal) => {
        const caches = [deps.informers.nginxes, deps.informers.pods, ...deps.informers.ownedInformers()];
        const synced = await Promise.all(caches.map((informer) => informer.waitForCacheSync(syncSignal)));
        if (!synced.every(Boolean)) return false;
        if (!(await this.caughtUpWith(previousNote, syncSignal))) return false;
        this.enqueueAll('resync');
        return true;
      },
      logger: deps.logger,
      metrics: {
        reconciled: (result, seconds) => {
          deps.metrics.reconciles.inc({ result });
          deps.metrics.duration.observe({ result }, seconds);
        },
      },
    });
    const resync = setInterval(() => this.enqueueAll('resync'), deps.resyncPeriodMs);
    resync.unref();
    try {
      await controller.run(signal);
    } finally {
      clearInterval(resync);
      await this.events.flush();
      await this.client.idle();
    }
  }

  private enqueueAll(trigger: ReconcileTrigger): void {
    for (const key of this.deps.informers.nginxes.cache.keys()) this.enqueue(key, trigger);
  }

  /**
   * Waits until the pod and Nginx caches reflect the previous leader's last writes, so a pod it created a moment
   * before handing over is not created again. Gives up (and goes on) after `handoverWaitMs`: a watch that slow is
   * broken, and the reflector relists.
   */
  private async caughtUpWith(note: string | undefined, signal: AbortSignal): Promise<boolean> {
    const versions = WrittenVersions.decode(note);
    if (versions.size === 0) return !signal.aborted;
    const started = performance.now();
    const limit = AbortSignal.any([signal, AbortSignal.timeout(this.deps.handoverWaitMs)]);
    const waits = [
      [this.deps.informers.pods, versions.get(POD_KIND)],
      [this.deps.informers.nginxes, versions.get(NGINX_KIND_KEY)],
    ] as const;
    const reached = await Promise.all(
      waits.map(([informer, version]) => (version ? informer.waitForResourceVersion(version, limit) : true)),
    );
    if (signal.aborted) return false;
    const details = { note, waitedMs: Math.round(performance.now() - started) };
    if (reached.every(Boolean))
      this.deps.logger.info('caches have seen the previous leader’s writes', details);
    else
      this.deps.logger.warn('caches did not reach the previous leader’s writes in time; going on', details);
    return true;
  }

  /** Remembers the resourceVersion of a write whose object our informers watch (a pod with our label, an Nginx). */
  private noteWrite(object: KubeObject): void {
    const kind = kindKey(object);
    const watched =
      kind === NGINX_KIND_KEY ||
      (kind === POD_KIND && Object.hasOwn(object.metadata?.labels ?? {}, LABEL_NGINX));
    if (watched) this.written.note(object);
  }
}
