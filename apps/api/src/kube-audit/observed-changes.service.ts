import { LossTally } from '../audit/audit-gap.js';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DeletedFinalStateUnknown, errorMessage } from '@ngx/kube-runtime';
import { Counter, Registry } from 'prom-client';
import type { AuditDatabase } from '../audit/audit-database.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { AUDIT_DATABASE } from '../audit/prisma.service.js';
import { recordedWrites, type RecordedWrite } from '../audit/recorded-writes.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { lastWriter } from '../kube/last-writer.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import {
  observedChangeRow,
  observedCreate,
  observedDelete,
  observedUpdate,
  type ObservedChange,
} from './observed-change.js';

/** How often held changes are looked at. */
const SWEEP_MS = 1_000;
/** Most held changes looked up in one query. */
const LOOKUP_BATCH = 200;
/** Most changes held at once (beyond it new ones are dropped and counted: a burst the audit cannot hold). */
const MAX_HELD = 20_000;

interface Held {
  change: ObservedChange;
  seenAt: Date;
  dueAt: number;
}

/**
 * So the trail has no hole where no audit event arrives (a managed cluster without an audit sink, the webhook
 * down): every new Nginx, new generation and delete the informer sees is held for AUDIT_OBSERVED_HOLD_SECONDS, then
 * looked up; when no change record of that write exists by then (any door: one of ours, or an audit event's,
 * by uid and resourceVersion, or any delete of the uid), it is recorded with door and actor unknown
 * (observed-change.ts). An audit event that comes later completes that record instead of making a second change.
 * Every replica may do this: the record is keyed by the write, so it is stored once. The initial list is not taken
 * for changes (what happened before the app started is for the audit events kube-apiserver still sends).
 */
@Injectable()
export class ObservedChanges implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = nestRuntimeLogger(new Logger('ObservedChanges'));
  /** Changes dropped because MAX_HELD were held. */
  private readonly dropped = new LossTally();
  private held: Held[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private stopHandlers: (() => void) | undefined;
  private readonly metrics: ReturnType<typeof observedMetrics>;

  constructor(
    @Inject(AuditTrail) private readonly trail: AuditTrail,
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
    @Inject(AUDIT_DATABASE) private readonly database: AuditDatabase,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(Registry) registry: Registry,
  ) {
    this.metrics = observedMetrics(registry);
  }

  onApplicationBootstrap(): void {
    if (!this.config.audit.enabled || !this.config.audit.timeline) return;
    this.stopHandlers = this.informers.nginxes.addEventHandler({
      add: (object, initialList) => {
        if (!initialList) this.hold(observedCreate(object, lastWriter(object)));
      },
      update: (previous, current) => this.hold(observedUpdate(previous, current, lastWriter(current))),
      delete: (object) =>
        this.hold(observedDelete(object instanceof DeletedFinalStateUnknown ? object.object : object)),
    });
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    this.stopHandlers?.();
    clearInterval(this.timer);
  }

  private hold(change: ObservedChange | undefined): void {
    if (!change) return;
    if (this.held.length >= MAX_HELD) {
      this.metrics.dropped.inc();
      this.dropped.add(change.namespace, change.name);
      return;
    }
    const seenAt = new Date();
    this.held.push({ change, seenAt, dueAt: seenAt.getTime() + this.config.audit.observedHoldMs });
  }

  /** Looks up the changes held long enough; records those no other record covers. */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const now = Date.now();
      while (this.held.length > 0 && this.held[0]!.dueAt <= now) {
        const due = this.held.slice(0, LOOKUP_BATCH).filter((each) => each.dueAt <= now);
        const covered = await recordedWrites(
          this.database,
          due.map(({ change }) => recordedWrite(change)),
        );
        this.held = this.held.slice(due.length);
        for (const { change, seenAt } of due) {
          if (covered.has(recordedWrite(change).key)) continue;
          this.trail.change(observedChangeRow(change, seenAt));
          this.metrics.recorded.inc({ kind: change.kind });
        }
      }
    } catch (error) {
      // The database is away: what is held stays held, and is looked at again on the next sweep.
      this.logger.warn('could not look up observed changes in the audit database; trying again', {
        held: this.held.length,
        error: errorMessage(error),
      });
    } finally {
      this.sweeping = false;
    }
    // Once there is room again, what could not be held is a gap in the timelines of the Nginxes it was about.
    if (this.dropped.total > 0 && this.held.length < MAX_HELD / 2)
      for (const gap of this.dropped.drain('observed-changes-dropped', "the app's Nginx informer"))
        this.trail.gap(gap);
  }
}

function recordedWrite(change: ObservedChange): RecordedWrite {
  return change.kind === 'delete'
    ? { uid: change.uid, deleted: true, key: `${change.uid}/deleted` }
    : {
        uid: change.uid,
        resourceVersion: change.resourceVersion,
        key: `${change.uid}@${change.resourceVersion}`,
      };
}

function observedMetrics(registry: Registry) {
  const registers = [registry];
  return {
    recorded: new Counter({
      name: 'nginx_audit_observed_changes_total',
      help: 'Changes recorded from the informer alone (no audit event or record of ours came for them in time), by kind.',
      labelNames: ['kind'],
      registers,
    }),
    dropped: new Counter({
      name: 'nginx_audit_observed_changes_dropped_total',
      help: 'Changes the informer saw that could not be held for recording (too many at once).',
      registers,
    }),
  };
}
