import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { errorMessage } from '@ngx/kube-runtime';
import { setTimeout as sleep } from 'node:timers/promises';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { eventError, type AuditEvent } from './audit-event.js';
import { AuditLogFollower } from './audit-log-follower.js';
import { KubeAuditIngest } from './kube-audit-ingest.service.js';

/** How often the log is looked at when it had nothing new. */
const POLL_MS = 500;

/**
 * kube-apiserver's audit log file as a source of change records, for clusters that write a file rather than post
 * to a webhook (KUBE_AUDIT_LOG_FILE): followed line by line (AuditLogFollower: rotation-safe, resuming where it
 * stopped), each line an audit event, handed to the same ingest as the webhook's batches. Lines are committed only
 * once ingested: while the ingest asks for a retry (the audit queue is full), the follower waits and reads them
 * again. A line that is no audit event is counted and skipped.
 */
@Injectable()
export class AuditLogSource implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = nestRuntimeLogger(new Logger('KubeAuditLog'));
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private follower: AuditLogFollower | undefined;

  constructor(
    @Inject(KubeAuditIngest) private readonly ingest: KubeAuditIngest,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const source = this.config.kubeAuditLog;
    if (!source) return;
    this.follower = new AuditLogFollower({ path: source.file, positionFile: source.positionFile });
    this.logger.info('following the kube-apiserver audit log', { file: source.file });
    this.running = this.follow(this.follower);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.running?.catch(() => {});
    await this.follower?.close();
  }

  private async follow(follower: AuditLogFollower): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      let wait = POLL_MS;
      try {
        const chunk = await follower.next();
        if (chunk.lines.length > 0) {
          const { events, invalid } = parseLines(chunk.lines);
          if (invalid > 0) this.ingest.invalid(invalid, 'audit-log');
          const outcome = await this.ingest.ingest(events, 'audit-log');
          if (outcome.kind === 'stored') {
            await follower.commit(chunk);
            wait = 0;
          } else wait = outcome.retryAfterSeconds * 1000;
        }
      } catch (error) {
        this.logger.warn('could not read the kube-apiserver audit log; trying again', {
          error: errorMessage(error),
        });
        wait = 5_000;
      }
      if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => {});
    }
  }
}

/** The lines that are audit events, and how many are not. */
function parseLines(lines: readonly string[]): { events: AuditEvent[]; invalid: number } {
  const events: AuditEvent[] = [];
  let invalid = 0;
  for (const line of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      invalid++;
      continue;
    }
    if (eventError(parsed) === undefined) events.push(parsed as AuditEvent);
    else invalid++;
  }
  return { events, invalid };
}
