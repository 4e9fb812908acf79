import {
  DEFAULT_INGRESS_PATH,
  DEFAULT_PORT,
  DEFAULT_SERVICE_PORT,
  TLS_PORT,
  type IntOrPercent,
  type Nginx,
  type NginxServiceType,
} from '@ngx/nginx-api';

/** The Service the controller keeps for an Nginx, as the Service panel shows it. */
export interface ServiceView {
  type: NginxServiceType;
  /** The Service's port, forwarded to the pods' spec.port. */
  port: number;
  targetPort: number;
  /** Only for NodePort/LoadBalancer, and only when spec.service names one (else the API server picks it). */
  nodePort: number | undefined;
  /** kubectl's PORT(S) column with the target: "80 → 8080/TCP", "80:30080 → 8080/TCP". */
  portsText: string;
  name: string | undefined;
  clusterIP: string | undefined;
  readyEndpoints: number | undefined;
}

/**
 * The Service of `nginx`, or undefined when spec.service is not set (the controller then keeps no Service, as
 * `serviceFor` in the API's controller decides). Type and ports come from the spec with the same defaults the
 * controller applies; name, cluster IP and ready endpoints from status.service (undefined until reported).
 */
export function serviceViewOf(nginx: Nginx): ServiceView | undefined {
  const wanted = nginx.spec?.service;
  if (!wanted) return undefined;
  const type = wanted.type ?? 'ClusterIP';
  const port = wanted.port ?? DEFAULT_SERVICE_PORT;
  const targetPort = nginx.spec.port ?? DEFAULT_PORT;
  const nodePort = type !== 'ClusterIP' ? wanted.nodePort : undefined;
  const status = nginx.status?.service;
  return {
    type,
    port,
    targetPort,
    nodePort,
    portsText: `${port}${nodePort !== undefined ? `:${nodePort}` : ''} → ${targetPort}/TCP${nginx.spec.tls ? `, ${TLS_PORT} → ${TLS_PORT}/TCP` : ''}`,
    name: status?.name,
    clusterIP: status?.clusterIP,
    readyEndpoints: status?.readyEndpoints,
  };
}

/** The owned PodDisruptionBudget, as the budget panel shows it. */
export interface BudgetView {
  /** "minAvailable: 2" or "maxUnavailable: 25%". */
  rule: string;
  /** undefined until kube's disruption controller has computed the budget. */
  disruptionsAllowed: number | undefined;
  currentHealthy: number | undefined;
  desiredHealthy: number | undefined;
  /** One sentence saying what may be evicted now, and why. */
  sentence: string;
}

const ruleText = (key: string, value: IntOrPercent) => `${key}: ${value}`;

/**
 * The disruption budget of `nginx`, or undefined when spec.disruptionBudget is not set. The numbers come from
 * status.disruptionBudget, read field by field so a status without it (an older API) shows "not computed yet".
 */
export function budgetViewOf(nginx: Nginx): BudgetView | undefined {
  const budget = nginx.spec?.disruptionBudget;
  if (!budget) return undefined;
  const rule =
    budget.minAvailable !== undefined
      ? ruleText('minAvailable', budget.minAvailable)
      : budget.maxUnavailable !== undefined
        ? ruleText('maxUnavailable', budget.maxUnavailable)
        : 'no bound';
  const status = (nginx.status as { disruptionBudget?: Record<string, unknown> } | undefined)
    ?.disruptionBudget;
  const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
  const disruptionsAllowed = num(status?.disruptionsAllowed);
  const currentHealthy = num(status?.currentHealthy);
  const desiredHealthy = num(status?.desiredHealthy);
  return {
    rule,
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy,
    sentence: budgetSentence(disruptionsAllowed, currentHealthy, desiredHealthy),
  };
}

function budgetSentence(
  allowed: number | undefined,
  healthy: number | undefined,
  floor: number | undefined,
): string {
  if (allowed === undefined) return 'Kubernetes has not computed this budget yet.';
  const why =
    healthy !== undefined && floor !== undefined ? ` (${healthy} healthy, at least ${floor} must stay)` : '';
  if (allowed === 0)
    return `No pod may be evicted now${why}: a node drain waits until more pods are healthy.`;
  return `${allowed} pod${allowed === 1 ? '' : 's'} may be evicted now${why}.`;
}

/** The owned Ingress (spec.ingress), as the Service panel shows it. */
export interface IngressView {
  /** "web.example.com/ → web:80", the rule as kubectl describe shows it. */
  ruleText: string;
  className: string | undefined;
  /** The Secret the Ingress terminates TLS with, when ingress.tls is true. */
  tlsSecret: string | undefined;
  name: string | undefined;
  /** What the Ingress controller published (status.ingress.addresses); empty until it does. */
  addresses: string[];
}

/**
 * The Ingress of `nginx`, or undefined when spec.ingress is not set; its rule from the spec with the controller's
 * defaults (path /, the Service's port), its name and addresses from status.ingress.
 */
export function ingressViewOf(nginx: Nginx): IngressView | undefined {
  const wanted = nginx.spec?.ingress;
  if (!wanted) return undefined;
  const servicePort = nginx.spec.service?.port ?? DEFAULT_SERVICE_PORT;
  const status = nginx.status?.ingress;
  return {
    ruleText: `${wanted.host}${wanted.path ?? DEFAULT_INGRESS_PATH} → ${nginx.metadata.name}:${servicePort}`,
    className: wanted.className,
    tlsSecret: wanted.tls ? nginx.spec.tls?.secretName : undefined,
    name: status?.name,
    addresses: status?.addresses ?? [],
  };
}
