import { KubeClient, isApiError } from '@ngx/kube-runtime';
import { KubeConfig } from '@ngx/kube-runtime/kubeconfig';
import { CONTROLPLANE_API_VERSION } from '@ngx/nginx-api';
import { CliError } from './cli-error.js';

/** Which server the kubeconfig points at: kube-apiserver itself, or the control plane's API in front of it. */
export type ServerKind = 'kube-apiserver' | 'control-plane';

/** Where the plugin talks to, as kubectl would: the kubeconfig's cluster and user, the namespace. */
export interface Connection {
  client: KubeClient;
  server: string;
  namespace: string;
  kind: ServerKind;
}

/** The kubeconfig kubectl would read: `--kubeconfig`, else $KUBECONFIG, else ~/.kube/config; `--context` chosen. */
export function loadKubeConfig(flags: { kubeconfig?: string; context?: string }): KubeConfig {
  const config = new KubeConfig();
  if (flags.kubeconfig) config.loadFromFile(flags.kubeconfig);
  else config.loadFromDefault();
  if (flags.context !== undefined) {
    if (!config.getContextObject(flags.context))
      throw new CliError(`context was not found for specified context: ${flags.context}`);
    config.setCurrentContext(flags.context);
  }
  if (!config.getCurrentCluster())
    throw new CliError(
      'no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    );
  return config;
}

/**
 * Which server answers: the control plane serves its sign-in providers to anyone
 * (`/controlplane/v1/auth/providers`); kube-apiserver has no such path (404, or 403 for a user who may not read
 * paths it does not know).
 */
async function serverKind(client: KubeClient): Promise<ServerKind> {
  try {
    await client.request({ path: `/${CONTROLPLANE_API_VERSION}/auth/providers`, priority: 'exempt' });
    return 'control-plane';
  } catch (error) {
    if (isApiError(error, 403, 404)) return 'kube-apiserver';
    throw error;
  }
}

/** A client for `config`'s current context, told which server it reaches. */
export async function connect(config: KubeConfig, flags: { namespace?: string }): Promise<Connection> {
  const client = new KubeClient(config, {
    userAgent: 'kubectl-ngx/0.1.0',
    // One person's commands: kubectl's own client-side limits.
    qps: 5,
    burst: 10,
  });
  const namespace =
    flags.namespace ?? config.getContextObject(config.getCurrentContext())?.namespace ?? 'default';
  return { client, server: client.server, namespace, kind: await serverKind(client) };
}
