import { Controller, Get, Inject, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Authorization } from '../auth/authorization.js';
import { callerOf } from '../auth/bearer-auth.guard.js';
import { unavailable } from '../auth/kubernetes/access-decisions.js';
import { clusterPermissions } from '../auth/kubernetes/cluster-permissions.js';
import type { Caller } from '../auth/roles.js';
import { StatusException } from '../http/kube-status.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';

/**
 * `/controlplane/v1/whoami`: the signed-in token's name and role, and the namespaces it can see here — its own
 * limit, narrowed to the one namespace this process watches when WATCH_NAMESPACE is set (null: every namespace) —
 * and the image allow-list, which the UI's forms check as the API will. With AUTHORIZATION=kubernetes the role and
 * namespaces summarise the cluster's RBAC for the caller (clusterPermissions: the SubjectAccessReviews that
 * authorize its requests), asked about the namespaces the control plane knows of (those of the Nginxes it has
 * cached, or the one it watches).
 */
@Controller(CONTROLPLANE_API_VERSION)
export class WhoAmIController {
  constructor(
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(Authorization) private readonly authorization: Authorization,
  ) {}

  @Get('whoami')
  async whoami(@Req() req: Request) {
    const caller = callerOf(req)!;
    if (caller.rbac) return this.clusterIdentity(caller);
    const watched = this.informers.namespaces;
    const namespaces = watched
      ? (caller.namespaces ?? watched).filter((ns) => watched.includes(ns))
      : (caller.namespaces ?? null);
    return {
      apiVersion: CONTROLPLANE_API_VERSION,
      kind: 'Identity',
      name: caller.name,
      role: caller.role,
      namespaces: namespaces ? [...namespaces] : null,
      ...watchedFields(watched),
      imageAllowlist: this.config.imageAllowlist ? [...this.config.imageAllowlist.prefixes] : null,
    };
  }

  private async clusterIdentity(caller: Caller) {
    const kubernetes = this.authorization.kubernetes!;
    const watched = this.informers.namespaces;
    const known = watched
      ? [...watched]
      : this.informers.nginxes.cache.list().map((nginx) => nginx.metadata.namespace ?? '');
    try {
      const permissions = await clusterPermissions(
        async (access) => (await kubernetes.answer(caller, access)).allowed,
        known.filter(Boolean),
      );
      // Watching some namespaces, "everywhere" is those: the UI then offers no other.
      const here = (namespaces: string[] | null) =>
        watched && namespaces === null ? [...watched] : namespaces;
      return {
        apiVersion: CONTROLPLANE_API_VERSION,
        kind: 'Identity',
        name: caller.name,
        role: permissions.role,
        namespaces: here(permissions.namespaces),
        writableNamespaces: here(permissions.writableNamespaces),
        authorization: 'kubernetes',
        ...watchedFields(watched),
        imageAllowlist: this.config.imageAllowlist ? [...this.config.imageAllowlist.prefixes] : null,
      };
    } catch (error) {
      throw new StatusException(503, unavailable(error).message);
    }
  }
}

/** Identity's watchNamespace (the first watched, kept for older clients) and watchNamespaces. */
function watchedFields(watched: readonly string[] | undefined) {
  return { watchNamespace: watched?.[0] ?? null, watchNamespaces: watched ? [...watched] : null };
}
