import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  DeletedFinalStateUnknown,
  KubeClient,
  errorMessage,
  resourceVersionAtLeast,
} from '@ngx/kube-runtime';
import { setTimeout as sleep } from 'node:timers/promises';
import { Counter, Registry } from 'prom-client';
import { AuditTrail } from '../audit/audit-trail.service.js';
import type { ChangeRecordRow } from '../audit/change-record.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import type { AuditEvent } from './audit-event.js';
import { nginxChanges, type EventContext } from './nginx-change.js';
import { podWriteEntry } from './pod-write.js';
import { PodDirectory } from '../timeline/pod-directory.js';
import { ownKubeUser } from './own-kube-user.js';
import { SpecHistory } from './spec-history.js';

/** Where audit events come from, in the words a gap entry uses. */
const SOURCE_NAMES: Readonly<Record<EventContext['source'], string>> = {
  'audit-webhook': "kube-apiserver's audit webhook",
  'audit-log': "kube-apiserver's audit log file",
};

/** How often the control plane's own identity is asked for again until kube-apiserver has told it. */
const IDENTITY_RETRY_MS = 5_000;
/** Longest a batch waits for the informer to show the writes its events name (for the specs they replaced). */
const INFORMER_PATIENCE_MS = 2_000;
/** How long a batch with a delete the informer has not shown yet waits for it. */
const DELETE_PAUSE_MS = 500;

/** What became of a batch of audit events. */
export type IngestOutcome =
  | { kind: 'stored'; changes: number }
  /** Not taken now: the control plane does not know its own identity yet, or its audit queue has no room. */
  | { kind: 'retry-later'; code: 429 | 503; why: string; retryAfterSeconds: number };

/**
 * Turns kube-apiserver's audit events (from the webhook or the log file) into change records of the audit trail
 * (nginx-change.ts), with the spec each write replaced (SpecHistory, from the informer). A batch is taken whole or
 * not at all: while the control plane does not yet know which user it is to kube-apiserver (needed to tell its own
 * writes apart), or while the audit queue lacks room for the batch's records, it is refused for a retry — the
 * webhook answers 503 or 429 and kube-apiserver sends it again — rather than stored in part or dropped.
 */
@Injectable()
export class KubeAuditIngest implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = nestRuntimeLogger(new Logger('KubeAudit'));
  private readonly history = new SpecHistory();
  private self: string | undefined;
  private identityTimer: NodeJS.Timeout | undefined;
  private stopHistory: (() => void) | undefined;
  private readonly metrics: ReturnType<typeof ingestMetrics>;

  constructor(
    @Inject(AuditTrail) private readonly trail: AuditTrail,
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
    @Inject(PodDirectory) private readonly pods: PodDirectory,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(Registry) registry: Registry,
  ) {
    this.metrics = ingestMetrics(registry);
  }

  onApplicationBootstrap(): void {
    this.stopHistory = this.informers.nginxes.addEventHandler({
      update: (previous, current) => this.history.saw(previous, current),
      delete: (object) =>
        this.history.sawDeleted(object instanceof DeletedFinalStateUnknown ? object.object : object),
    });
    void this.learnIdentity();
  }

  beforeApplicationShutdown(): void {
    clearTimeout(this.identityTimer);
    this.stopHistory?.();
  }

  /**
   * Stores the change records of `events` (see the class's guarantees). An event whose write the informer has
   * not shown yet (so the spec it replaced is not known) waits for it, at most INFORMER_PATIENCE_MS a batch.
   */
  async ingest(events: readonly AuditEvent[], source: EventContext['source']): Promise<IngestOutcome> {
    const self = this.self;
    if (self === undefined)
      return {
        kind: 'retry-later',
        code: 503,
        why: 'the control plane does not know its own identity yet',
        retryAfterSeconds: 5,
      };
    const missed: string[] = [];
    const context: EventContext = {
      source,
      self,
      watchNamespaces: this.config.watchNamespaces,
      specBefore: (uid, version) => {
        const spec = this.history.specBefore(uid, version);
        if (spec === undefined) missed.push(version);
        return spec;
      },
      deletedSpec: (uid) => {
        const spec = this.history.deletedSpec(uid);
        if (spec === undefined) missed.push('');
        return spec;
      },
    };
    let rows: ChangeRecordRow[] = events.flatMap((event) => nginxChanges(event, context));
    if (missed.length > 0 && (await this.informerCaughtUp(missed)))
      rows = events.flatMap((event) => nginxChanges(event, context));
    const podWrites = events.flatMap((event) => {
      const entry = podWriteEntry(event, {
        self,
        watchNamespaces: this.config.watchNamespaces,
        podOwner: (namespace, pod) => this.pods.ownerOf(namespace, pod),
      });
      return entry ? [entry] : [];
    });
    if (!this.trail.changes(rows, podWrites))
      return { kind: 'retry-later', code: 429, why: 'the audit queue is full', retryAfterSeconds: 10 };
    this.metrics.events.inc({ source }, events.length);
    this.metrics.changes.inc({ source }, rows.length);
    return { kind: 'stored', changes: rows.length };
  }

  /**
   * Counts events of a batch that were not audit events (lost: kube-apiserver has no better copy to send) and
   * records the loss as a gap in every timeline (whose events they were is not known).
   */
  invalid(count: number, source: EventContext['source'], detail = SOURCE_NAMES[source]): void {
    this.metrics.invalid.inc({ source }, count);
    const now = new Date();
    this.trail.gap({ what: 'audit-events-unreadable', from: now, until: now, count, detail });
  }

  /**
   * Waits (at most INFORMER_PATIENCE_MS) until the Nginx informer has seen the writes that left `versions` (an
   * empty one stands for a delete, whose answer names none: then a short pause). True when it may have.
   */
  private async informerCaughtUp(versions: readonly string[]): Promise<boolean> {
    const latest = versions
      .filter(Boolean)
      .reduce<string | undefined>(
        (max, version) => (max === undefined || resourceVersionAtLeast(version, max) ? version : max),
        undefined,
      );
    if (latest === undefined) {
      await sleep(DELETE_PAUSE_MS);
      return true;
    }
    return this.informers.nginxes.waitForResourceVersion(latest, AbortSignal.timeout(INFORMER_PATIENCE_MS));
  }

  private async learnIdentity(): Promise<void> {
    try {
      this.self = await ownKubeUser(this.client);
      this.logger.info('kube-apiserver audit events: the control plane is known to kube-apiserver as', {
        user: this.self,
      });
    } catch (error) {
      this.logger.warn("could not learn the control plane's own user from kube-apiserver; asking again", {
        error: errorMessage(error),
      });
      this.identityTimer = setTimeout(() => void this.learnIdentity(), IDENTITY_RETRY_MS);
      this.identityTimer.unref();
    }
  }
}

function ingestMetrics(registry: Registry) {
  const registers = [registry];
  return {
    events: new Counter({
      name: 'nginx_audit_kube_events_total',
      help: 'kube-apiserver audit events taken in, by source (audit-webhook, audit-log).',
      labelNames: ['source'],
      registers,
    }),
    changes: new Counter({
      name: 'nginx_audit_kube_changes_total',
      help: 'Change records made from kube-apiserver audit events, by source.',
      labelNames: ['source'],
      registers,
    }),
    invalid: new Counter({
      name: 'nginx_audit_kube_events_invalid_total',
      help: 'Items of audit batches that were no audit event (lost), by source.',
      labelNames: ['source'],
      registers,
    }),
  };
}
