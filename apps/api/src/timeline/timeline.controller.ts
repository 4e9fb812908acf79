import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { NGINX_PLURAL } from '@ngx/nginx-api';
import type { Request, Response } from 'express';
import { encodeCursor } from '../audit/audit-cursor.js';
import { PrismaService } from '../audit/prisma.service.js';
import { NamespaceScoped } from '../auth/auth.decorators.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';
import { namespaceParam, nameParam } from '../http/path-params.js';
import type { QueryParams } from '../http/query-params.js';
import { callerOf } from '../auth/bearer-auth.guard.js';
import { WatchSlots } from '../rest/relay-limits.js';
import { encodeVersion, parseTimelineParams, toCursor } from './timeline-params.js';
import { streamTimeline } from './timeline-watch.js';
import { TimelineReader } from './timeline-reader.js';
import { podWhy } from './pod-why.js';
import type { AuditPrismaClient } from '../audit/prisma-client.js';
import { StatusException } from '../http/kube-status.js';

/**
 * `GET /controlplane/v1/namespaces/{ns}/nginxes/{name}/timeline`: an Nginx's changes (any door), reconciles and
 * kept evidence (Events, pod transitions, condition changes, pod writes) in one order, newest first, each with its
 * causes; paged with `continue`, filtered by `since`, `until`, `kind` and `uid`; `watch=true` streams new entries
 * (timeline-watch.ts), from a list's `metadata.resourceVersion` when given. Viewer role; namespace-scoped.
 */
@NamespaceScoped('path')
@Controller(CONTROLPLANE_API_VERSION)
export class TimelineController {
  private readonly reader: TimelineReader;
  private readonly prisma: () => Promise<AuditPrismaClient>;

  constructor(
    @Inject(PrismaService) database: PrismaService,
    @Inject(WatchSlots) private readonly watches: WatchSlots,
  ) {
    this.prisma = () => database.client();
    this.reader = new TimelineReader(this.prisma);
  }

  /**
   * `GET …/nginxes/{name}/pods/{pod}/why`: the chain from a pod (alive, or deleted within the retention) back to
   * the change or the person that caused its creation or its deletion, with the actor. 404 when the trail has no
   * entry of the pod.
   */
  @Get(`namespaces/:namespace/${NGINX_PLURAL}/:name/pods/:pod/why`)
  async why(
    @Param('namespace') rawNamespace: string,
    @Param('name') rawName: string,
    @Param('pod') rawPod: string,
    @Res() response: Response,
  ): Promise<void> {
    const target = {
      namespace: namespaceParam(rawNamespace),
      name: nameParam(rawName),
      pod: nameParam(rawPod),
    };
    const why = await podWhy(this.reader, this.prisma, target);
    if (!why)
      throw new StatusException(
        404,
        `the audit trail has no entry of pod "${target.pod}" of nginx "${target.name}"`,
      );
    response
      .status(200)
      .set({ 'Cache-Control': 'no-store' })
      .json({ apiVersion: CONTROLPLANE_API_VERSION, kind: 'PodWhy', pod: target.pod, ...why });
  }

  @Get(`namespaces/:namespace/${NGINX_PLURAL}/:name/timeline`)
  async timeline(
    @Param('namespace') rawNamespace: string,
    @Param('name') rawName: string,
    @Query() query: QueryParams,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const namespace = namespaceParam(rawNamespace);
    const name = nameParam(rawName);
    const { filters, limit, after, watch } = parseTimelineParams(query, namespace, name);
    if (watch) {
      const release = this.watches.take(callerOf(request)!.name);
      try {
        await streamTimeline(this.reader, filters, watch, response);
      } finally {
        release();
      }
      return;
    }
    // Read first: a watch from this version misses nothing committed after the page was read.
    const version = await this.reader.version();
    const page = await this.reader.page(filters, limit, after);
    response
      .status(200)
      .set({ 'Cache-Control': 'no-store' })
      .json({
        apiVersion: CONTROLPLANE_API_VERSION,
        kind: 'TimelineList',
        metadata: {
          resourceVersion: encodeVersion(version),
          ...(page.next ? { continue: encodeCursor('timeline', filters, toCursor(page.next)) } : {}),
        },
        items: page.items,
      });
  }
}
