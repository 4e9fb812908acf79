// Traefik (tools/traefik/build.sh) as the Gateway API implementation of a test: run out of cluster with its
// Kubernetes Gateway provider (the admin kubeconfig through KUBECONFIG), watching one namespace, with one HTTP
// entrypoint on a free port of 127.0.0.1. The test gets a GatewayClass of Traefik's own and a Gateway in that
// namespace whose listener port is the entrypoint's port: Traefik binds a listener to the entrypoint whose address
// ends in the listener's port. Traefik then writes the HTTPRoutes' status (Accepted, ResolvedRefs) and sends
// requests to the Services' EndpointSlices: kwok's pod IPs, which data-plane.ts serves.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { KubeApiError, type KubeClient } from '../../libs/kube-runtime/src/index.js';
import { CLUSTER_DIR, KUBECONFIG_PATH, ROOT } from './paths.js';
import { freePort } from './prometheus.js';
import { uniqueName, waitFor } from './wait.js';

/** The controllerName Traefik's Gateway provider takes GatewayClasses of. */
export const TRAEFIK_CONTROLLER_NAME = 'traefik.io/gateway-controller';
const GATEWAY_API = 'gateway.networking.k8s.io/v1';

/** Builds Traefik unless built (tools/traefik/build.sh: cached; the first build takes ~11 min). */
export function buildTraefik(): string {
  execFileSync('bash', [join(ROOT, 'tools/traefik/build.sh')], { cwd: ROOT, stdio: 'ignore' });
  return join(CLUSTER_DIR, 'bin/traefik');
}

export interface TraefikGateway {
  /** The Gateway's name in the namespace: an HTTPRoute's parentRefs name. */
  gateway: string;
  /** Its cluster-scoped GatewayClass (removed by stop). */
  gatewayClass: string;
  /** http://127.0.0.1:<port>, the Gateway's one HTTP listener. */
  url: string;
  /**
   * The backend weights Traefik runs now for an HTTPRoute (read from its API, so set once the route's change is
   * live, not only accepted): one record per weighted rule, from Kubernetes Service name to weight.
   */
  weights(namespace: string, route: string): Promise<Record<string, number>[]>;
  /** What Traefik logged so far (stdout and stderr). */
  log(): string;
  /** Stops Traefik and deletes the Gateway and the GatewayClass. */
  stop(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Gateway API objects, read loosely
type Body = Record<string, any>;

/** The condition `type` of an object's status (or of a route's parent status), if there is one. */
export const conditionOf = (conditions: Body[] | undefined, type: string): Body | undefined =>
  conditions?.find((condition) => condition.type === type);

/**
 * Starts Traefik for `namespace` with a new GatewayClass and a Gateway there, and resolves once Traefik has
 * accepted both (the Gateway Programmed). Traefik reads only that namespace's objects (and GatewayClasses), so
 * files running side by side, each with its own, do not meet.
 */
export async function startTraefik(client: KubeClient, namespace: string): Promise<TraefikGateway> {
  const binary = buildTraefik();
  const port = await freePort();
  const apiPort = await freePort();
  const gatewayClass = uniqueName('traefik');
  const gateway = 'traefik';
  await client.request({
    method: 'POST',
    path: '/apis/gateway.networking.k8s.io/v1/gatewayclasses',
    body: {
      apiVersion: GATEWAY_API,
      kind: 'GatewayClass',
      metadata: { name: gatewayClass, labels: { 'mycompany.com/test': 'traefik' } },
      spec: { controllerName: TRAEFIK_CONTROLLER_NAME },
    },
  });
  await client.request({
    method: 'POST',
    path: `/apis/gateway.networking.k8s.io/v1/namespaces/${namespace}/gateways`,
    body: {
      apiVersion: GATEWAY_API,
      kind: 'Gateway',
      metadata: { name: gateway },
      spec: {
        gatewayClassName: gatewayClass,
        listeners: [{ name: 'web', port, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Same' } } }],
      },
    },
  });

  const args = [
    `--entryPoints.web.address=127.0.0.1:${port}`,
    // Its API (the running configuration) on an entrypoint of its own, without the dashboard (not built).
    `--entryPoints.traefik.address=127.0.0.1:${apiPort}`,
    '--api.insecure=true',
    '--api.dashboard=false',
    '--providers.kubernetesgateway=true',
    `--providers.kubernetesgateway.namespaces=${namespace}`,
    // The address the Gateway's status names (as a load balancer's would be).
    '--providers.kubernetesgateway.statusaddress.ip=127.0.0.1',
    '--global.checkNewVersion=false',
    '--global.sendAnonymousUsage=false',
    '--log.level=INFO',
  ];
  // KUBECONFIG makes its provider an out-of-cluster client of the local cluster.
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: KUBECONFIG_PATH };
  delete env.KUBERNETES_SERVICE_HOST;
  const child: ChildProcess = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const gatewayPath = `/apis/gateway.networking.k8s.io/v1/namespaces/${namespace}/gateways/${gateway}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    const ignoreMissing = (error: unknown) => {
      if (!(error instanceof KubeApiError && error.code === 404)) throw error;
    };
    await client.request({ method: 'DELETE', path: gatewayPath }).catch(ignoreMissing);
    await client
      .request({
        method: 'DELETE',
        path: `/apis/gateway.networking.k8s.io/v1/gatewayclasses/${gatewayClass}`,
      })
      .catch(ignoreMissing);
  };
  try {
    await waitFor(
      `Traefik to program the Gateway ${namespace}/${gateway}`,
      async () => {
        if (child.exitCode !== null)
          throw new Error(`Traefik exited (${child.exitCode}): ${output.slice(-2000)}`);
        const status = (await client.request<Body>({ path: gatewayPath })).status;
        return conditionOf(status?.conditions, 'Programmed')?.status === 'True';
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\nTraefik's log:\n${output.slice(-3000)}`);
  }
  return {
    gateway,
    gatewayClass,
    url: `http://127.0.0.1:${port}`,
    weights: (ns, route) => routeWeights(`http://127.0.0.1:${apiPort}`, ns, route),
    log: () => output,
    stop,
  };
}

/** A service of Traefik's API (/api/http/services), the fields read here. */
interface TraefikService {
  name: string;
  weighted?: { services: { name: string; weight: number }[] };
}

/**
 * The weighted services Traefik's Gateway provider made for `namespace`/`route` (named
 * `httproute-<namespace>-<route>-gw-…-wrr@kubernetesgateway`), each as Service name → weight: a backend is named
 * `<namespace>-<service>-<scheme>-<port>`.
 */
async function routeWeights(
  api: string,
  namespace: string,
  route: string,
): Promise<Record<string, number>[]> {
  const response = await fetch(`${api}/api/http/services?per_page=1000`);
  if (!response.ok) throw new Error(`Traefik's API answered ${response.status}`);
  const services = (await response.json()) as TraefikService[];
  const backend = new RegExp(`^${namespace}-(.+)-(?:http|https|h2c)-\\d+$`);
  return services
    .filter((service) => service.weighted && service.name.startsWith(`httproute-${namespace}-${route}-gw-`))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((service) =>
      Object.fromEntries(
        service.weighted!.services.map(({ name, weight }) => [backend.exec(name)?.[1] ?? name, weight]),
      ),
    );
}
