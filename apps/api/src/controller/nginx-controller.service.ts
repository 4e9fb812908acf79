import { hostname } from 'node:os';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import {
  Controller,
  DeletedFinalStateUnknown,
  EventRecorder,
  Expectations,
  KubeClient,
  LeaderElector,
  PrometheusWorkQueueMetrics,
  RateLimitingQueue,
  objectKey,
} from '@ngx/kube-runtime';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { auditedReconcile, ReconcileTriggers, type ReconcileTrigger } from './audited-reconcile.js';
import { controllerOf, owningNginxKey } from './pod-ownership.js';
import { MANAGED_BY } from './pod-template.js';
import { NginxReconciler, type ReconcilerMetrics } from './reconciler.js';
import { StrayPods } from './stray-pods.js';

/**
 * Hosts the Nginx controller: handlers on the shared Nginx and pod informers (ClusterInformers), a rate-limited
 * workqueue, and workers running the reconciler — only while this instance holds the leader Lease. It stops in
 * onModuleDestroy, the first shutdown hook, so in-flight reconciles are drained and the Lease released before
 * the audit trail's final flush.
 */
@Injectable()
export class NginxControllerService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('NginxController');
  private readonly runtimeLogger = nestRuntimeLogger(this.logger);
  private readonly stopping = new AbortController();
  private readonly identity = `${hostname()}-${process.pid}`;
  private readonly events: EventRecorder;
  /** The queue and expectations of the current leadership term; none while not leading. */
  private term:
    { queue: RateLimitingQueue<string>; expectations: Expectations; triggers: ReconcileTriggers } | undefined;
  private readonly strays = new StrayPods();
  private running: Promise<unknown> | undefined;
  private readonly queueMetrics: PrometheusWorkQueueMetrics;
  private readonly metrics: ReturnType<typeof controllerMetrics>;

  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(Registry) registry: Registry,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
  ) {
    this.queueMetrics = new PrometheusWorkQueueMetrics(registry, 'nginx');
    this.metrics = controllerMetrics(registry);
    this.events = new EventRecorder({
      client,
      component: MANAGED_BY,
      instance: this.identity,
      logger: this.runtimeLogger,
    });
    this.registerHandlers();
  }

  onApplicationBootstrap(): void {
    if (!this.config.controller.enabled) {
      this.logger.log('CONTROLLER=false: not reconciling in this process');
      return;
    }
    const signal = this.stopping.signal;
    this.running = this.config.controller.leaderElection
      ? new LeaderElector({
          client: this.client,
          namespace: this.config.controller.leaseNamespace,
          name: 'nginx-controller',
          identity: this.identity,
          logger: this.runtimeLogger,
          onStartedLeading: (leading) => void this.lead(leading),
          onNewLeader: (leader) => this.logger.log(`leader is ${leader}`),
        }).run(signal)
      : this.lead(signal);
  }

  /** For /readyz: ready once both caches are synced; says whether this instance leads. */
  readiness(): { ok: boolean; detail: string; leader: boolean } {
    if (!this.config.controller.enabled)
      return { ok: true, detail: 'controller disabled in this process', leader: false };
    const synced = this.informers.hasSynced();
    const leader = this.term !== undefined;
    const role = leader ? 'leading' : 'standby (another instance leads)';
    return { ok: synced, detail: synced ? `caches synced, ${role}` : 'caches syncing', leader };
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.events.flush();
  }

  /** One leadership term: a fresh queue and expectations, every Nginx queued, workers until `leading` aborts. */
  private async lead(leading: AbortSignal): Promise<void> {
    const queue = new RateLimitingQueue<string>({ metrics: this.queueMetrics });
    this.queueMetrics.watch(queue);
    const expectations = new Expectations();
    const triggers = new ReconcileTriggers();
    this.term = { queue, expectations, triggers };
    this.metrics.leader.set(1);
    const reconciler = new NginxReconciler({
      client: this.client,
      nginxes: this.informers.nginxes.cache,
      pods: this.informers.pods.cache,
      expectations,
      strays: this.strays,
      events: this.events,
      logger: this.runtimeLogger,
      burst: this.config.controller.burst,
      metrics: this.metrics.reconciler,
    });
    const controller = new Controller({
      name: 'nginx',
      queue,
      workers: this.config.controller.workers,
      reconcile: auditedReconcile({
        reconcile: (key, report) => reconciler.reconcile(key, report),
        triggers,
        attempt: (key) => queue.numRequeues(key) + 1,
        audit: this.audit,
        logger: this.runtimeLogger,
        instanceId: this.identity,
      }),
      waitForSync: async (signal) => {
        const synced = await this.informers.waitForCacheSync(signal);
        if (synced) for (const key of this.informers.nginxes.cache.keys()) this.enqueue(key, 'resync');
        return synced;
      },
      logger: this.runtimeLogger,
      metrics: {
        reconciled: (result, seconds) => {
          this.metrics.reconciles.inc({ result });
          this.metrics.duration.observe({ result }, seconds);
        },
        dropped: () => this.metrics.dropped.inc(),
      },
    });
    try {
      await controller.run(leading);
    } finally {
      if (this.term?.queue === queue) {
        this.term = undefined;
        this.metrics.leader.set(0);
      }
    }
  }

  private enqueue(key: string | undefined, trigger: ReconcileTrigger): void {
    if (!key || !this.term) return;
    this.term.triggers.note(key, trigger);
    this.term.queue.add(key);
  }

  private registerHandlers(): void {
    const enqueue = (key: string | undefined) => this.enqueue(key, 'pod-event');
    this.informers.nginxes.addEventHandler({
      add: (nginx) => this.enqueue(objectKey(nginx), 'nginx-added'),
      update: (_, nginx) => this.enqueue(objectKey(nginx), 'nginx-updated'),
      delete: (nginx) =>
        this.enqueue(
          nginx instanceof DeletedFinalStateUnknown ? nginx.key : objectKey(nginx),
          'nginx-deleted',
        ),
    });
    this.informers.pods.addEventHandler({
      add: (pod) => {
        const owner = owningNginxKey(pod);
        if (owner && controllerOf(pod)) this.term?.expectations.creationObserved(owner);
        enqueue(owner);
      },
      update: (previous, pod) => {
        const owner = owningNginxKey(pod);
        if (owner && pod.metadata?.deletionTimestamp && !previous.metadata?.deletionTimestamp) {
          this.term?.expectations.deletionObserved(owner, objectKey(pod));
        }
        const before = owningNginxKey(previous);
        if (before !== owner) enqueue(before);
        enqueue(owner);
      },
      delete: (deleted) => {
        const pod = deleted instanceof DeletedFinalStateUnknown ? deleted.object : deleted;
        const owner = owningNginxKey(pod);
        if (owner) this.term?.expectations.deletionObserved(owner, objectKey(pod));
        // Not marked for deletion, yet gone from our label-filtered watch: maybe its label was removed.
        if (owner && controllerOf(pod) && !pod.metadata?.deletionTimestamp) this.strays.add(owner, pod);
        enqueue(owner);
      },
    });
  }
}

/** The controller's own Prometheus collectors (the workqueue and informers report through kube-runtime). */
function controllerMetrics(registry: Registry) {
  const registers = [registry];
  const created = new Counter({
    name: 'nginx_pods_created_total',
    help: 'Pods created by the controller.',
    registers,
  });
  const deleted = new Counter({
    name: 'nginx_pods_deleted_total',
    help: 'Pods deleted by the controller, by reason.',
    labelNames: ['reason'],
    registers,
  });
  const reconciler: ReconcilerMetrics = {
    podCreated: () => created.inc(),
    podDeleted: (reason) => deleted.inc({ reason }),
  };
  return {
    reconciler,
    reconciles: new Counter({
      name: 'nginx_reconciles_total',
      help: 'Reconciles by result (success, error, requeue).',
      labelNames: ['result'],
      registers,
    }),
    duration: new Histogram({
      name: 'nginx_reconcile_duration_seconds',
      help: 'Time one reconcile took.',
      labelNames: ['result'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
      registers,
    }),
    dropped: new Counter({
      name: 'nginx_reconcile_dropped_total',
      help: 'Keys dropped after too many failed reconciles.',
      registers,
    }),
    leader: new Gauge({
      name: 'nginx_controller_leader',
      help: '1 while this instance leads and reconciles.',
      registers,
    }),
  };
}
