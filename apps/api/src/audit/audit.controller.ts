import { errorMessage } from '@ngx/kube-runtime';
import { Controller, Get, Inject, Logger, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { NamespaceScoped } from '../auth/auth.decorators.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import type { AuditListKind } from './audit-cursor.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import {
  EXPORT_LIMITS,
  exportSerializer,
  sendExport,
  type ExportFormat,
  type ExportSerializer,
} from './audit-export.js';
import { CHANGE_COLUMNS, JSON_COLUMNS, RECONCILE_COLUMNS } from './audit-items.js';
import {
  parseChangeParams,
  parseNoopParams,
  parseReconcileParams,
  parseRefusalParams,
  type QueryParams,
} from './audit-params.js';
import { AuditReader, type Page } from './audit-reader.js';
import type { AuditDatabase } from './audit-database.js';
import { AUDIT_DATABASE } from './prisma.service.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';

/**
 * The audit trail over HTTP, read-only: reconcile records, change records (newest first, paged with `continue`,
 * or exported whole as NDJSON or CSV), the no-op counts and the refused requests' counts. Bad parameters are answered 400 with a `Status`
 * naming the parameter (StatusException). Reads need the viewer role (the global guard).
 */
@NamespaceScoped('query')
@Controller(`${CONTROLPLANE_API_VERSION}/audit`)
export class AuditController {
  private readonly logger = nestRuntimeLogger(new Logger('Audit'));
  private readonly audit: AuditReader;

  constructor(
    @Inject(AUDIT_DATABASE) database: AuditDatabase,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {
    this.audit = new AuditReader(() => database.client());
  }

  @Get('reconciles')
  async reconciles(@Query() query: QueryParams, @Req() request: Request, @Res() response: Response) {
    const params = parseReconcileParams(query, request.headers.accept);
    if (params.format !== 'json') {
      const batches = this.audit.reconcileBatches(params.filters);
      const serializer = exportSerializer(params.format, RECONCILE_COLUMNS, JSON_COLUMNS);
      return this.export(response, 'reconciles', params.format, serializer, batches);
    }
    const page = await this.audit.reconciles(params.filters, params.limit, params.after);
    sendList(response, 'ReconcileRecordList', page);
  }

  @Get('changes')
  async changes(@Query() query: QueryParams, @Req() request: Request, @Res() response: Response) {
    const params = parseChangeParams(query, request.headers.accept);
    if (params.format !== 'json') {
      const batches = this.audit.changeBatches(params.filters);
      const serializer = exportSerializer(params.format, CHANGE_COLUMNS, JSON_COLUMNS);
      return this.export(response, 'changes', params.format, serializer, batches);
    }
    const page = await this.audit.changes(params.filters, params.limit, params.after);
    sendList(response, 'ChangeRecordList', page);
  }

  @Get('noops')
  async noops(@Query() query: QueryParams, @Res() response: Response) {
    const items = await this.audit.noops(parseNoopParams(query));
    sendList(response, 'ReconcileNoopList', { items });
  }

  /**
   * Refused requests (401, 403, refused sign-ins and live handshakes), counted per minute window, door, code,
   * reason, subject and address. Needs the rights to read the whole cluster's audit (no namespace is taken).
   */
  @Get('refusals')
  async refusals(@Query() query: QueryParams, @Res() response: Response) {
    const params = parseRefusalParams(query);
    const page = await this.audit.refusals(params.filters, params.limit, params.after);
    sendList(response, 'RefusalCountList', page);
  }

  private async export<Item extends object>(
    response: Response,
    kind: AuditListKind,
    format: ExportFormat,
    serializer: ExportSerializer<Item>,
    batches: AsyncIterable<Item[]>,
  ): Promise<void> {
    const limits = { ...EXPORT_LIMITS, stallMs: this.config.limits.stallMs };
    const { rows, error } = await sendExport(response, { kind, format, serializer, batches, limits });
    if (error)
      this.logger.error('audit export failed midway: connection closed', {
        list: kind,
        rows,
        error: errorMessage(error),
      });
  }
}

function sendList(response: Response, kind: string, page: Page<unknown>): void {
  response
    .status(200)
    .set({ 'Cache-Control': 'no-store', Vary: 'Accept' })
    .json({
      apiVersion: CONTROLPLANE_API_VERSION,
      kind,
      metadata: page.continue ? { continue: page.continue } : {},
      items: page.items,
    });
}
