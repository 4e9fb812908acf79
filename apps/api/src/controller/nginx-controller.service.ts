import { hostname } from 'node:os';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { V1Pod } from '@kubernetes/client-node';
import {
  Controller,
  DeletedFinalStateUnknown,
  EventRecorder,
  Expectations,
  InformerFactory,
  KubeClient,
  LeaderElector,
  PrometheusWorkQueueMetrics,
  RateLimitingQueue,
  prometheusReflectorObserver,
  objectKey,
  stripManagedFields,
  type KubeObject,
  type RuntimeLogger,
  type SharedInformer,
} from '@ngx/kube-runtime';
import {
  LABEL_NGINX,
  NGINX_GROUP,
  NGINX_KIND,
  NGINX_PLURAL,
  NGINX_VERSION,
  type Nginx,
} from '@ngx/nginx-api';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { controllerOf, owningNginxKey } from './pod-ownership.js';
import { MANAGED_BY } from './pod-template.js';
import { NginxReconciler, PODS_BY_NGINX, type ReconcilerMetrics } from './reconciler.js';

type NginxObject = Nginx & KubeObject;
type PodObject = V1Pod & KubeObject;

function nestLogger(logger: Logger): RuntimeLogger {
  const line = (message: string, context?: Record<string, unknown>) =>
    context ? `${message} ${JSON.stringify(context)}` : message;
  return {
    info: (message, context) => logger.log(line(message, context)),
    warn: (message, context) => logger.warn(line(message, context)),
    error: (message, context) => logger.error(line(message, context)),
  };
}

/**
 * Hosts the Nginx controller: informers on Nginx objects and on pods carrying our label, a rate-limited
 * workqueue, and workers running the reconciler — only while this instance holds the leader Lease.
 */
@Injectable()
export class NginxControllerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NginxController');
  private readonly runtimeLogger = nestLogger(this.logger);
  private readonly stopping = new AbortController();
  private readonly identity = `${hostname()}-${process.pid}`;
  private readonly factory: InformerFactory;
  private readonly nginxes: SharedInformer<NginxObject>;
  private readonly pods: SharedInformer<PodObject>;
  private readonly events: EventRecorder;
  /** The queue and expectations of the current leadership term; none while not leading. */
  private term: { queue: RateLimitingQueue<string>; expectations: Expectations } | undefined;
  private running: Promise<unknown> | undefined;
  private readonly queueMetrics: PrometheusWorkQueueMetrics;
  private readonly metrics: ReturnType<typeof controllerMetrics>;

  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(Registry) registry: Registry,
  ) {
    this.queueMetrics = new PrometheusWorkQueueMetrics(registry, 'nginx');
    this.metrics = controllerMetrics(registry);
    this.factory = new InformerFactory();
    this.nginxes = this.factory.informerFor<NginxObject>({
      client,
      resource: { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL },
      kind: NGINX_KIND,
      transform: stripManagedFields,
      logger: this.runtimeLogger,
      observer: prometheusReflectorObserver(registry, 'nginxes'),
    });
    this.pods = this.factory.informerFor<PodObject>({
      client,
      resource: { group: '', version: 'v1', plural: 'pods' },
      kind: 'Pod',
      labelSelector: LABEL_NGINX,
      transform: stripManagedFields,
      indexers: {
        [PODS_BY_NGINX]: (pod) => [owningNginxKey(pod)].filter((key): key is string => Boolean(key)),
      },
      logger: this.runtimeLogger,
      observer: prometheusReflectorObserver(registry, 'pods'),
    });
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
    this.factory.start(signal);
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
    const synced = this.nginxes.hasSynced() && this.pods.hasSynced();
    const leader = this.term !== undefined;
    const role = leader ? 'leading' : 'standby (another instance leads)';
    return { ok: synced, detail: synced ? `caches synced, ${role}` : 'caches syncing', leader };
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.factory.stopped();
    await this.events.flush();
  }

  /** One leadership term: a fresh queue and expectations, every Nginx queued, workers until `leading` aborts. */
  private async lead(leading: AbortSignal): Promise<void> {
    const queue = new RateLimitingQueue<string>({ metrics: this.queueMetrics });
    this.queueMetrics.watch(queue);
    const expectations = new Expectations();
    this.term = { queue, expectations };
    this.metrics.leader.set(1);
    const reconciler = new NginxReconciler({
      client: this.client,
      nginxes: this.nginxes.cache,
      pods: this.pods.cache,
      expectations,
      events: this.events,
      logger: this.runtimeLogger,
      burst: this.config.controller.burst,
      metrics: this.metrics.reconciler,
    });
    const controller = new Controller({
      name: 'nginx',
      queue,
      workers: this.config.controller.workers,
      reconcile: (key) => reconciler.reconcile(key),
      waitForSync: async (signal) => {
        const synced = await this.factory.waitForCacheSync(signal);
        if (synced) for (const key of this.nginxes.cache.keys()) queue.add(key);
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

  private registerHandlers(): void {
    const enqueue = (key: string | undefined) => key && this.term?.queue.add(key);
    this.nginxes.addEventHandler({
      add: (nginx) => enqueue(objectKey(nginx)),
      update: (_, nginx) => enqueue(objectKey(nginx)),
      delete: (nginx) => enqueue(nginx instanceof DeletedFinalStateUnknown ? nginx.key : objectKey(nginx)),
    });
    this.pods.addEventHandler({
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
