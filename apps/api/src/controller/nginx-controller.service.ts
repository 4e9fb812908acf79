import { hostname } from 'node:os';
import {
  Inject,
  Injectable,
  Optional,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { AnalysisMeasurer } from '../analysis/analysis-run.js';
import { ANALYSIS_MEASURER } from '../analysis/analysis.module.js';
import type { V1Pod } from '@kubernetes/client-node';
import {
  ignoreNotFound,
  KubeClient,
  LeaderElector,
  LeadershipEnded,
  type LeadershipTerm,
  NAMESPACE_INDEX,
  objectPath,
  type TermEnd,
} from '@ngx/kube-runtime';
import { Registry } from 'prom-client';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { controllerRuntimeMetrics, type ReconcileMetrics } from '../metrics/controller-runtime-metrics.js';
import { leaderElectionStatus } from '../metrics/leader-election-metrics.js';
import { PrometheusWorkQueueMetrics } from '../metrics/runtime-metrics.js';
import { ControllerInformers } from './controller-informers.js';
import { OwnEvents } from '../kube/own-events.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { ControllerTerm } from './controller-term.js';
import { controllerMetrics, type ControllerMetrics } from './controller-metrics.js';
import {
  nginxEventHandlers,
  ownedEventHandlers,
  budgetChangeMatters,
  podEventHandlers,
  quotaEventHandlers,
  refusedCreation,
  type ControllerEvents,
} from './event-handlers.js';
import { registerRolloutGauges } from './rollout-gauges.js';
import { StrayPods } from './stray-pods.js';

/** The controller's Lease (in CONTROLLER_LEASE_NAMESPACE). */
const LEASE_NAME = 'nginx-controller';
/** How often a standby looks again at the pods it saw leave the watch (see StrayPods.recheck). */
const STRAY_RECHECK_MS = 60_000;
/** How long a new term's caches may take to pass its consistent read through their watches before a relist. */
const CATCH_UP_PATIENCE_MS = 1000;
/** Allowed for a write to reach kube-apiserver after it left: the server's deadline starts on arrival. */
const WRITE_DELIVERY_MS = 1000;

/**
 * kube-apiserver's deadline for a term's writes. A term sends nothing after its renew deadline, and another
 * instance may take the Lease only a lease duration after the last renewal: a write sent at the last moment,
 * delivered within WRITE_DELIVERY_MS, is decided before then. The configuration keeps it at 1 s or more.
 */
export function writeDeadlineMs(lease: { durationMs: number; renewDeadlineMs: number }): number {
  return lease.durationMs - lease.renewDeadlineMs - WRITE_DELIVERY_MS;
}

/**
 * Hosts the Nginx controller in the Nest app: handlers on the shared informers, and leadership terms
 * (ControllerTerm) while this instance holds the leader Lease. It stops in onModuleDestroy, the first shutdown
 * hook: the term drains, then the Lease is released, before the audit trail's final flush and the client closes.
 */
@Injectable()
export class NginxControllerService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('NginxController');
  private readonly runtimeLogger = nestRuntimeLogger(this.logger);
  private readonly stopping = new AbortController();
  private readonly identity = `${hostname()}-${process.pid}`;
  /** The current leadership term; none while standing by. */
  private term: ControllerTerm | undefined;
  private readonly strays = new StrayPods();
  private running: Promise<unknown> | undefined;
  private strayRecheck: NodeJS.Timeout | undefined;
  private readonly queueMetrics: PrometheusWorkQueueMetrics;
  private readonly reconcileMetrics: ReconcileMetrics;
  /** leader_election_master_status of the Lease (1 also while leading unelected: the one instance leads). */
  private readonly leaderStatus: (leading: boolean) => void;
  private readonly metrics: ControllerMetrics;

  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(Registry) registry: Registry,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(ControllerInformers) private readonly informers: ControllerInformers,
    @Inject(OwnEvents) private readonly ownEvents: OwnEvents,
    @Optional() @Inject(ANALYSIS_MEASURER) private readonly analysis?: AnalysisMeasurer,
  ) {
    this.queueMetrics = new PrometheusWorkQueueMetrics(registry, 'nginx');
    this.metrics = controllerMetrics(registry);
    this.reconcileMetrics = controllerRuntimeMetrics(registry, 'nginx', this.config.controller.workers);
    this.leaderStatus = leaderElectionStatus(registry, LEASE_NAME);
    registerRolloutGauges(registry, () => this.informers.nginxes.cache.list());
    const events = this.events();
    this.informers.nginxes.addEventHandler(nginxEventHandlers(events));
    this.informers.pods.addEventHandler(podEventHandlers(events));
    if (this.config.controller.quotaWake)
      this.informers.quotas.addEventHandler(
        quotaEventHandlers(events, (namespace) =>
          this.informers.nginxes.cache
            .byIndex(NAMESPACE_INDEX, namespace)
            .filter(refusedCreation)
            .map((nginx) => `${namespace}/${nginx.metadata.name}`),
        ),
      );
    const { revisions, configMaps, services, endpointSlices, budgets, ingresses } = this.informers.owned;
    revisions.addEventHandler(ownedEventHandlers(events));
    configMaps.addEventHandler(ownedEventHandlers(events));
    services.addEventHandler(ownedEventHandlers(events));
    endpointSlices.addEventHandler(ownedEventHandlers(events));
    budgets.addEventHandler(ownedEventHandlers(events, { matters: budgetChangeMatters }));
    ingresses.addEventHandler(ownedEventHandlers(events));
  }

  onApplicationBootstrap(): void {
    const { controller } = this.config;
    if (!controller.enabled) {
      this.logger.log('CONTROLLER=false: not reconciling in this process');
      return;
    }
    const signal = this.stopping.signal;
    this.running = controller.leaderElection
      ? new LeaderElector({
          client: this.client,
          namespace: controller.leaseNamespace,
          name: LEASE_NAME,
          identity: this.identity,
          leaseDurationMs: controller.lease.durationMs,
          renewDeadlineMs: controller.lease.renewDeadlineMs,
          retryPeriodMs: controller.lease.retryPeriodMs,
          logger: this.runtimeLogger,
          onStartedLeading: (term) => this.lead(term),
          onStoppedLeading: (why: TermEnd) => this.metrics.terms.inc({ end: why }),
          onNewLeader: (leader) => this.logger.log(`leader is ${leader}`),
        }).run(signal)
      : this.leadUnelected(signal);
    this.strayRecheck = setInterval(() => void this.recheckStrays(), STRAY_RECHECK_MS);
    this.strayRecheck.unref();
  }

  /** For /readyz: ready once the caches are synced; says whether this instance leads. */
  readiness(): { ok: boolean; detail: string; leader: boolean } {
    if (!this.config.controller.enabled)
      return { ok: true, detail: 'controller disabled in this process', leader: false };
    const synced = this.informers.hasSynced();
    const leader = this.term !== undefined && !this.term.signal.aborted;
    const role = leader ? 'leading' : 'standby (another instance leads)';
    return { ok: synced, detail: synced ? `caches synced, ${role}` : 'caches syncing', leader };
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.strayRecheck);
    this.stopping.abort();
    await this.running;
  }

  /** One leadership term: runs until its signal aborts and everything it started has finished. */
  private async lead(leadership: LeadershipTerm): Promise<void> {
    const { controller } = this.config;
    const term = new ControllerTerm(
      {
        client: this.client,
        informers: this.informers,
        ownEvents: this.ownEvents,
        strays: this.strays,
        audit: this.audit,
        ...(this.analysis ? { analysis: this.analysis } : {}),
        identity: this.identity,
        workers: controller.workers,
        burst: controller.burst,
        resyncPeriodMs: controller.resyncPeriodMs,
        tlsRecheckMs: controller.tlsRecheckMs,
        writeDeadlineMs: writeDeadlineMs(controller.lease),
        catchUpPatienceMs: CATCH_UP_PATIENCE_MS,
        logger: this.runtimeLogger,
        metrics: this.metrics,
        queueMetrics: this.queueMetrics,
        reconcileMetrics: this.reconcileMetrics,
        traceReconciles: this.config.otlpEndpoint !== undefined,
      },
      leadership,
    );
    this.term = term;
    this.metrics.leader.set(1);
    this.leaderStatus(true);
    try {
      await term.run();
    } finally {
      if (this.term === term) this.term = undefined;
      this.metrics.leader.set(0);
      this.leaderStatus(false);
    }
  }

  /** Without leader election the process's life is one term, which ends as a term ends when the process stops. */
  private leadUnelected(stopping: AbortSignal): Promise<void> {
    const term = new AbortController();
    stopping.addEventListener('abort', () => term.abort(new LeadershipEnded('stopped')), { once: true });
    return this.lead({ signal: term.signal, heldUntil: () => Infinity });
  }

  /** Where the informer handlers' news goes: the current term, and the stray-pod record kept across terms. */
  private events(): ControllerEvents {
    return {
      enqueue: (key, trigger, afterMs) => this.term?.enqueue(key, trigger, afterMs),
      creationObserved: (key) => this.term?.expectations.creationObserved(key),
      deletionObserved: (key, podKey) => this.term?.expectations.deletionObserved(key, podKey),
      strayCandidate: (key, pod) => this.strays.add(key, pod),
      podInWatch: (key, uid) => this.strays.settle(key, uid),
      nginxGone: (key) => this.strays.forget(key),
    };
  }

  /** While standing by, drops stray candidates that turned out deleted or were released by the leader. */
  private async recheckStrays(): Promise<void> {
    if (this.term || this.strays.size === 0 || this.stopping.signal.aborted) return;
    await this.strays.recheck(async (candidate) => {
      const { name, namespace } = candidate.metadata!;
      try {
        return await this.client.request<V1Pod>({
          path: objectPath({ group: '', version: 'v1', plural: 'pods', namespace }, name!),
          priority: 'low',
          signal: this.stopping.signal,
        });
      } catch (error) {
        return ignoreNotFound(error);
      }
    });
  }
}
