import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { CoreV1Event } from '@kubernetes/client-node';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { OwnEvents } from '../kube/own-events.js';
import { eventEntry } from './event-entry.js';
import { PodDirectory } from './pod-directory.js';

/**
 * Keeps the Events this process's controller writes in the timeline, as kube-apiserver answered each write
 * (OwnEvents), at the millisecond they happened (an Event's own timestamps are whole seconds: a quota refusal
 * would sort before the scale-up that caused it): where the controller runs. The API's Events watch leaves them out (TimelineCollector), so none is
 * written by one process and parsed back by another: a rollout's hundreds of Events cost a watch nothing.
 */
@Injectable()
export class OwnEventsTimeline implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private stop: (() => void) | undefined;

  constructor(
    @Inject(AuditTrail) private readonly trail: AuditTrail,
    @Inject(OwnEvents) private readonly ownEvents: OwnEvents,
    @Inject(PodDirectory) private readonly pods: PodDirectory,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.audit.enabled || !this.config.audit.timeline) return;
    this.stop = this.ownEvents.listen((event, happenedAt) => {
      const entry = eventEntry(
        event as CoreV1Event,
        (namespace, pod) => this.pods.ownerOf(namespace, pod),
        happenedAt,
      );
      if (entry) this.trail.entry(entry);
    });
  }

  beforeApplicationShutdown(): void {
    this.stop?.();
  }
}
