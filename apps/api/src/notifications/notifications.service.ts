import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { DeletedFinalStateUnknown } from '@ngx/kube-runtime';
import { Registry } from 'prom-client';
import type { AuditDatabase } from '../audit/audit-database.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { AUDIT_DATABASE } from '../audit/prisma.service.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ControllerInformers } from '../controller/controller-informers.js';
import { NginxControllerService } from '../controller/nginx-controller.service.js';
import { notificationMetrics } from './notification-metrics.js';
import { deletionEvent, notificationEvents } from './notification-events.js';
import { SqlNotificationRecords } from './notification-records.js';
import { NotificationSender, type Delivery } from './notification-sender.js';
import { Notifier } from './notifier.js';
import { RoutingFile } from './routing-file.js';

/** How often the routing file is looked at besides fs.watch, and the leadership checked. */
const ROUTING_POLL_MS = 2000;
const LEADERSHIP_POLL_MS = 1000;
/** How long shutdown waits for deliveries under way (what is left stays pending for the next leader). */
const DRAIN_MS = 3000;

/**
 * Notifications (NOTIFICATIONS_FILE): the Nginx informer's changes become events (notification-events.ts), routed
 * to receivers by the routing file, sent by the leader once (notifier.ts) on a sender of their own. A delivery
 * given up is kept as a gap in the Nginx's timeline.
 */
@Injectable()
export class NotificationsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Notifications');
  private routing: RoutingFile | undefined;
  private sender: NotificationSender | undefined;
  private leadership: NodeJS.Timeout | undefined;

  constructor(
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(ControllerInformers) private readonly informers: ControllerInformers,
    @Inject(NginxControllerService) private readonly controller: NginxControllerService,
    @Inject(AUDIT_DATABASE) private readonly database: AuditDatabase,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Registry) private readonly registry: Registry,
  ) {}

  onApplicationBootstrap(): void {
    const file = this.config.notificationsFile;
    if (!file || !this.config.controller.enabled) return;
    const metrics = notificationMetrics(this.registry);
    const routing = new RoutingFile({
      file,
      pollMs: ROUTING_POLL_MS,
      onLoaded: (loaded) =>
        this.logger.log(
          `routing loaded from ${file}: ${loaded.routes.length} routes to ${loaded.receivers.length} receivers`,
        ),
      onRefused: (problem) => this.logger.error(`routing refused, the last good one stays: ${problem}`),
    });
    this.routing = routing;
    const settle = (delivery: Delivery, state: 'sent' | 'given-up', attempts: number) =>
      void notifier.settled(delivery, state, attempts);
    const sender = new NotificationSender({
      concurrency: 8,
      queueLimit: 10_000,
      retryBaseMs: 1000,
      retryMaxMs: 30_000,
      onSent: (delivery, attempts) => {
        metrics.sent.inc({ receiver: delivery.receiver, event: delivery.event });
        settle(delivery, 'sent', attempts);
      },
      onGivenUp: (delivery, attempts, reason) => {
        metrics.failed.inc({ receiver: delivery.receiver, event: delivery.event });
        this.logger.warn(`notification ${delivery.id} given up after ${attempts} attempts: ${reason}`);
        this.givenUp(delivery, reason);
        settle(delivery, 'given-up', attempts);
      },
    });
    this.sender = sender;
    const notifier = new Notifier({
      records: new SqlNotificationRecords(this.database),
      sender,
      routing: () => routing.current,
      leading: () => this.controller.readiness().leader,
      onProblem: (message) => this.logger.error(message),
      onTookOver: ({ offered, claimed, resent }) =>
        this.logger.log(
          `leading: ${offered} events seen while standing by offered, ${claimed} deliveries of them not sent before and sent now; ${resent} deliveries left pending by the last leader resent`,
        ),
    });
    routing.start();
    this.informers.nginxes.addEventHandler({
      update: (previous, nginx) => notifier.notify(notificationEvents(previous, nginx)),
      delete: (deleted) => {
        const nginx = deleted instanceof DeletedFinalStateUnknown ? deleted.object : deleted;
        notifier.notify([deletionEvent(nginx, new Date().toISOString())]);
      },
    });
    this.leadership = setInterval(() => void notifier.checkLeadership(), LEADERSHIP_POLL_MS);
    this.leadership.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.leadership);
    this.routing?.stop();
    await this.sender?.stop(DRAIN_MS);
  }

  /** The delivery as a gap in its Nginx's timeline: a person reading it sees who was not told. */
  private givenUp(delivery: Delivery, reason: string): void {
    const now = new Date();
    this.audit.gap({
      what: 'notification-given-up',
      from: now,
      until: now,
      count: 1,
      namespace: delivery.namespace,
      nginx: delivery.nginx,
      detail: `${delivery.event} to receiver ${delivery.receiver}: ${reason}`,
    });
  }
}
