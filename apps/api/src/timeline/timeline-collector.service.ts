import type { CoreV1Event } from '@kubernetes/client-node';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DeletedFinalStateUnknown, KubeClient, SharedInformer, type KubeObject } from '@ngx/kube-runtime';
import { MANAGED_BY } from '@ngx/nginx-api';
import { AuditTrail } from '../audit/audit-trail.service.js';
import type { TimelineEntryRow } from '../audit/timeline-entry.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { conditionChanges } from './condition-changes.js';
import { eventEntry, eventEntryFields } from './event-entry.js';
import { PodDirectory } from './pod-directory.js';
import { podTransitions } from './pod-transitions.js';

type EventObject = CoreV1Event & KubeObject;

/**
 * Keeps what the cluster forgets, for the timeline (audit/timeline-entry.ts): each owned pod's transitions and the
 * Nginx's condition changes from the informers, and the Kubernetes Events about an Nginx or its pods from an Events
 * informer of its own (the cluster keeps Events for an hour; these are kept with the audit's retention). The Events
 * our own controller writes are left out of the watch: the process that runs the controller keeps them as
 * kube-apiserver answered each write (OwnEventsTimeline), which saves reading back hundreds of them per rollout.
 * Every API replica collects. Entries are keyed, so a replica that sees the same thing
 * again (or another replica) stores it once. What the informers list at start is not taken for transitions (what
 * happened before is not known); Events listed at start are kept.
 */
@Injectable()
export class TimelineCollector implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = nestRuntimeLogger(new Logger('Timeline'));
  private readonly stopping = new AbortController();
  private events: SharedInformer<EventObject> | undefined;
  private running: Promise<void> | undefined;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    @Inject(AuditTrail) private readonly trail: AuditTrail,
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
    @Inject(PodDirectory) private readonly pods: PodDirectory,
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.audit.enabled || !this.config.audit.timeline) return;
    const keep = (entries: readonly TimelineEntryRow[]) => {
      for (const entry of entries) this.trail.entry(entry);
    };
    this.unsubscribe.push(
      this.informers.pods.addEventHandler({
        add: (pod, initialList) => {
          if (!initialList) keep(podTransitions(undefined, pod, new Date()));
        },
        update: (previous, current) => keep(podTransitions(previous, current, new Date())),
        delete: (object) => {
          const pod = object instanceof DeletedFinalStateUnknown ? object.object : object;
          keep(podTransitions(pod, undefined, new Date()));
        },
      }),
      this.informers.nginxes.addEventHandler({
        add: (nginx, initialList) => {
          if (!initialList) keep(conditionChanges(undefined, nginx, new Date()));
        },
        update: (previous, current) => keep(conditionChanges(previous, current, new Date())),
      }),
    );
    this.events = new SharedInformer<EventObject>({
      client: this.client,
      resource: { group: '', version: 'v1', plural: 'events' },
      namespaces: this.config.watchNamespaces,
      kind: 'Event',
      // Our controller's own Events are kept where it runs, as they are written (OwnEventsTimeline), not read back.
      fieldSelector: `reportingComponent!=${MANAGED_BY}`,
      transform: (event) => eventEntryFields(event) as EventObject,
      logger: this.logger,
    });
    const keepEvent = (event: EventObject) => {
      const entry = eventEntry(event, (namespace, pod) => this.pods.ownerOf(namespace, pod));
      if (entry) this.trail.entry(entry);
    };
    this.events.addEventHandler({ add: keepEvent, update: (_previous, current) => keepEvent(current) });
    // After the pods are known, so the Events listed at start find the Nginx of the pod they are about.
    const events = this.events;
    this.running = this.informers.pods
      .waitForCacheSync(this.stopping.signal)
      .then((synced) => (synced ? events.run(this.stopping.signal) : undefined))
      .catch((error: unknown) => this.logger.error('the Events informer stopped', { error: String(error) }));
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const stop of this.unsubscribe.splice(0)) stop();
    this.stopping.abort();
    await this.running;
  }
}
