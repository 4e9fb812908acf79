import { collectionPath, type KubeClient } from '@ngx/kube-runtime';
import {
  LABEL_NGINX,
  abortPlan,
  podTemplateOf,
  promotePlan,
  revisionNumbered,
  revisionOf,
  revisionsOf,
  rollbackPlan,
  type Nginx,
  type WritePlan,
} from '@ngx/nginx-api';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { CliError } from './cli-error.js';
import { patchNginx, readNginx } from './nginx-client.js';
import type { History, NginxDoor } from './nginx-door.js';

/** What only the control plane keeps: kube-apiserver has no audit of an Nginx to read. */
function needsControlPlane(what: string): CliError {
  return new CliError(
    `${what} reads the control plane's audit, which kube-apiserver does not keep: point kubectl at the control ` +
      "plane's API (a kubeconfig context whose server is the control plane)",
  );
}

/** Requests decided here from the Nginx as read, with @ngx/nginx-api's plans, and written as the user. */
export class KubeApiServerDoor implements NginxDoor {
  constructor(private readonly client: KubeClient) {}

  async promote(namespace: string, name: string, full: boolean): Promise<Nginx> {
    return this.write(namespace, name, promotePlan(await readNginx(this.client, namespace, name), { full }));
  }

  async abort(namespace: string, name: string): Promise<Nginx> {
    return this.write(namespace, name, abortPlan(await readNginx(this.client, namespace, name)));
  }

  async history(namespace: string, name: string): Promise<History> {
    const nginx = await readNginx(this.client, namespace, name);
    const current = revisionOf(podTemplateOf(nginx.spec));
    const list = await this.client.request<{ items: V1ControllerRevision[] }>({
      path: collectionPath({ group: 'apps', version: 'v1', plural: 'controllerrevisions', namespace }),
      query: { labelSelector: `${LABEL_NGINX}=${name}` },
    });
    const items = revisionsOf(nginx, list.items ?? []).map(({ revision, hash, template, created }) => ({
      revision,
      hash,
      template,
      created,
      current: hash === current,
      change: null,
    }));
    return { nginx, items };
  }

  async rollback(namespace: string, name: string, revision: number, read: Nginx): Promise<Nginx> {
    const { items } = await this.history(namespace, name);
    const revisions = items.map((item) => ({ ...item, name: '' }));
    const target = revisionNumbered(read, revisions, revision);
    return this.write(
      namespace,
      name,
      rollbackPlan(read, target, { resourceVersion: read.metadata.resourceVersion }),
    );
  }

  timeline(): never {
    throw needsControlPlane('timeline');
  }

  followTimeline(): never {
    throw needsControlPlane('timeline');
  }

  why(): never {
    throw needsControlPlane('why');
  }

  private async write(namespace: string, name: string, plan: WritePlan): Promise<Nginx> {
    return plan.patch === undefined ? plan.nginx : patchNginx(this.client, namespace, name, plan.patch);
  }
}
