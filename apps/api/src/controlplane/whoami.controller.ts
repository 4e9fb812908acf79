import { Controller, Get, Inject, Req } from '@nestjs/common';
import type { Request } from 'express';
import { callerOf } from '../auth/bearer-auth.guard.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';

/**
 * `/controlplane/v1/whoami`: the signed-in token's name and role, and the namespaces it can see here — its own
 * limit, narrowed to the one namespace this process watches when WATCH_NAMESPACE is set (null: every namespace) —
 * and the image allow-list, which the UI's forms check as the API will.
 */
@Controller(CONTROLPLANE_API_VERSION)
export class WhoAmIController {
  constructor(
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  @Get('whoami')
  whoami(@Req() req: Request) {
    const caller = callerOf(req)!;
    const watched = this.informers.namespace;
    const namespaces = watched
      ? (caller.namespaces ?? [watched]).filter((ns) => ns === watched)
      : (caller.namespaces ?? null);
    return {
      apiVersion: CONTROLPLANE_API_VERSION,
      kind: 'Identity',
      name: caller.name,
      role: caller.role,
      namespaces: namespaces ? [...namespaces] : null,
      watchNamespace: watched ?? null,
      imageAllowlist: this.config.imageAllowlist ? [...this.config.imageAllowlist.prefixes] : null,
    };
  }
}
