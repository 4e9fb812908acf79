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
  RateLimitingQueue,
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
import { appConfig, type AppConfig } from '../config/app-config.js';
import { controllerOf, owningNginxKey } from './pod-ownership.js';
import { MANAGED_BY } from './pod-template.js';
import { NginxReconciler, PODS_BY_NGINX } from './reconciler.js';

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

  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {
    this.factory = new InformerFactory();
    this.nginxes = this.factory.informerFor<NginxObject>({
      client,
      resource: { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL },
      kind: NGINX_KIND,
      transform: stripManagedFields,
      logger: this.runtimeLogger,
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

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.factory.stopped();
    await this.events.flush();
  }

  /** One leadership term: a fresh queue and expectations, every Nginx queued, workers until `leading` aborts. */
  private async lead(leading: AbortSignal): Promise<void> {
    const queue = new RateLimitingQueue<string>();
    const expectations = new Expectations();
    this.term = { queue, expectations };
    const reconciler = new NginxReconciler({
      client: this.client,
      nginxes: this.nginxes.cache,
      pods: this.pods.cache,
      expectations,
      events: this.events,
      logger: this.runtimeLogger,
      burst: this.config.controller.burst,
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
    });
    try {
      await controller.run(leading);
    } finally {
      if (this.term?.queue === queue) this.term = undefined;
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
