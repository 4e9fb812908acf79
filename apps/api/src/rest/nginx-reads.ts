import { Inject, Injectable } from '@nestjs/common';
import { NGINX_API_VERSION, NGINX_GROUP, NGINX_KIND, NGINX_LIST_KIND, NGINX_PLURAL } from '@ngx/nginx-api';
import type { Request, Response } from 'express';
import { callerOf } from '../auth/bearer-auth.guard.js';
import { ClusterInformers, type NginxObject } from '../kube/cluster-informers.js';
import { ApiServerRelay } from './api-server-relay.js';
import { notFound } from '../http/kube-status.js';
import { nginxPath, type Subresource } from './nginx-paths.js';
import { isTrue, type KubeQuery } from './kube-query.js';
import { boundedWatchTimeout, WatchSlots } from './relay-limits.js';
import { fieldMatcher, labelMatcher } from './selectors.js';

/**
 * Reads of Nginx objects. A read that allows any resourceVersion (`resourceVersion=0`, the API server's
 * "serve from cache" contract) is answered from the informer cache once it has synced; every other read —
 * unset resourceVersion (a consistent read), an exact version, pages, watches and Table output — is relayed.
 */
@Injectable()
export class NginxReads {
  constructor(
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
    @Inject(ApiServerRelay) private readonly relay: ApiServerRelay,
    @Inject(WatchSlots) private readonly watches: WatchSlots,
  ) {}

  async list(namespace: string | undefined, query: KubeQuery, req: Request, res: Response): Promise<void> {
    const path = nginxPath(namespace);
    if (isTrue(query.watch)) return this.watch(path, query, req, res);
    if (!this.fromCache(query, req, namespace) || query.limit || query.continue)
      return this.relay.pipe({ path, query, accept: req.headers.accept }, res);

    const byLabel = labelMatcher(query.labelSelector);
    const byField = fieldMatcher(query.fieldSelector);
    const cache = this.informers.nginxes.cache;
    const candidates = namespace ? cache.byIndex('namespace', namespace) : cache.list();
    const items = candidates
      .filter((nginx) => byLabel(nginx.metadata) && byField(nginx.metadata))
      .sort(byKey)
      .map(withTypeMeta);
    res.json({
      apiVersion: NGINX_API_VERSION,
      kind: NGINX_LIST_KIND,
      metadata: { resourceVersion: this.informers.nginxes.lastSyncResourceVersion },
      items,
    });
  }

  async get(namespace: string, name: string, query: KubeQuery, req: Request, res: Response): Promise<void> {
    if (!this.fromCache(query, req, namespace))
      return this.relay.pipe({ path: nginxPath(namespace, name), query, accept: req.headers.accept }, res);
    const nginx = this.informers.nginxes.cache.get(`${namespace}/${name}`);
    if (!nginx) throw notFound({ group: NGINX_GROUP, plural: NGINX_PLURAL }, name);
    res.json(withTypeMeta(nginx));
  }

  /** GET of the status or scale subresource: always relayed (the API server computes Scale). */
  async subresource(
    namespace: string,
    name: string,
    subresource: Subresource,
    query: KubeQuery,
    req: Request,
    res: Response,
  ): Promise<void> {
    const path = nginxPath(namespace, name, subresource);
    return this.relay.pipe({ path, query, accept: req.headers.accept }, res);
  }

  /** A relayed watch: one of the caller's watch slots, and a bounded `timeoutSeconds` (a Warning when lowered). */
  private async watch(path: string, query: KubeQuery, req: Request, res: Response): Promise<void> {
    const release = this.watches.take(callerOf(req)!.name);
    try {
      const timeoutSeconds = boundedWatchTimeout(query.timeoutSeconds);
      const lowered = timeoutSeconds !== undefined && Number(timeoutSeconds) < Number(query.timeoutSeconds);
      const bounded = timeoutSeconds === undefined ? query : { ...query, timeoutSeconds };
      const warnings = lowered
        ? [
            `timeoutSeconds=${query.timeoutSeconds} lowered to ${timeoutSeconds}, the longest watch served here`,
          ]
        : [];
      await this.relay.stream({ path, query: bounded, accept: req.headers.accept }, res, warnings);
    } finally {
      release();
    }
  }

  /** The last state the cache saw of one object, for the change audit's "before". */
  cached(namespace: string, name: string): NginxObject | undefined {
    return this.informers.nginxes.cache.get(`${namespace}/${name}`);
  }

  private fromCache(query: KubeQuery, req: Request, namespace: string | undefined): boolean {
    return (
      this.informers.watches(namespace) &&
      query.resourceVersion === '0' &&
      query.resourceVersionMatch !== 'Exact' &&
      !wantsTable(req) &&
      this.informers.nginxes.hasSynced()
    );
  }
}

/** A Table (kubectl get) or another representation only the API server renders. */
function wantsTable(req: Request): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('as=Table') || accept.includes('protobuf');
}

const byKey = (a: NginxObject, b: NginxObject) =>
  (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
  (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

const withTypeMeta = (nginx: NginxObject) => ({ ...nginx, apiVersion: NGINX_API_VERSION, kind: NGINX_KIND });
