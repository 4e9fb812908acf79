// Types only: this module is also bundled for the browser, and `import type` leaves nothing of TypeBox there.
import type { Static } from '@sinclair/typebox';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type {
  AffinityShape,
  AnalysisMeasurementShape,
  AnalysisRunShape,
  AnalysisTemplateShape,
  CanaryPhaseShape,
  CanaryStatusShape,
  GateRunShape,
  GateShape,
  BlueGreenPhaseShape,
  BlueGreenStatusShape,
  BlueGreenStrategyShape,
  CanaryStepShape,
  CanaryStrategyShape,
  ConditionShape,
  GatewayAPIRoutingShape,
  HeaderMatchShape,
  HTTPRouteStatusShape,
  DisruptionBudgetShape,
  DisruptionBudgetStatusShape,
  IngressShape,
  IngressStatusShape,
  MeasurementPhaseShape,
  NginxSpecShape,
  NginxStatusShape,
  PrometheusQueryShape,
  ResourcesShape,
  RollingUpdateShape,
  ServiceShape,
  ServiceStatusShape,
  ServiceTypeShape,
  StrategyShape,
  TlsShape,
  TolerationShape,
  TopologySpreadConstraintShape,
} from './schema.js';

/**
 * The Nginx API's types, each derived from its declaration in schema.ts (which documents every field): the CRD,
 * the validation and these types cannot drift apart.
 */

/** A count (`2`) or a percentage of spec.replicas (`"25%"`), as a Deployment's rollout bounds take it. */
export type IntOrPercent = number | string;

export type NginxSpec = Static<typeof NginxSpecShape>;
export type NginxResources = Static<typeof ResourcesShape>;
/** Resource amounts as Kubernetes quantities (`50m`, `64Mi`); integers are whole units. */
export type NginxResourceList = NonNullable<NginxResources['requests']>;
export type NginxServiceType = Static<typeof ServiceTypeShape>;
export type NginxServiceSpec = Static<typeof ServiceShape>;
export type NginxStrategy = Static<typeof StrategyShape>;
export type NginxRollingUpdate = Static<typeof RollingUpdateShape>;
export type NginxCanaryStrategy = Static<typeof CanaryStrategyShape>;
export type NginxBlueGreenStrategy = Static<typeof BlueGreenStrategyShape>;
export type NginxCanaryStep = Static<typeof CanaryStepShape>;
export type NginxGatewayAPIRouting = Static<typeof GatewayAPIRoutingShape>;
export type NginxHeaderMatch = Static<typeof HeaderMatchShape>;
export type NginxHTTPRouteStatus = Static<typeof HTTPRouteStatusShape>;
export type NginxPrometheusQuery = Static<typeof PrometheusQueryShape>;
export type NginxAnalysisTemplate = Static<typeof AnalysisTemplateShape>;
export type NginxDisruptionBudget = Static<typeof DisruptionBudgetShape>;
export type NginxToleration = Static<typeof TolerationShape>;
export type NginxAffinity = Static<typeof AffinityShape>;
export type NginxTopologySpreadConstraint = Static<typeof TopologySpreadConstraintShape>;
// --- TLS and Ingress (issue 34) ---
export type NginxTls = Static<typeof TlsShape>;
export type NginxIngress = Static<typeof IngressShape>;
// --- end TLS and Ingress ---

export type NginxCondition = Static<typeof ConditionShape>;
export type NginxServiceStatus = Static<typeof ServiceStatusShape>;
export type NginxDisruptionBudgetStatus = Static<typeof DisruptionBudgetStatusShape>;
export type NginxIngressStatus = Static<typeof IngressStatusShape>;
export type NginxMeasurementPhase = Static<typeof MeasurementPhaseShape>;
export type NginxAnalysisMeasurement = Static<typeof AnalysisMeasurementShape>;
export type NginxAnalysisRun = Static<typeof AnalysisRunShape>;
export type NginxGate = Static<typeof GateShape>;
export type NginxGateWebhook = NonNullable<NginxGate['webhook']>;
export type NginxGateRun = Static<typeof GateRunShape>;
export type NginxCanaryPhase = Static<typeof CanaryPhaseShape>;
export type NginxCanaryStatus = Static<typeof CanaryStatusShape>;
export type NginxBlueGreenPhase = Static<typeof BlueGreenPhaseShape>;
export type NginxBlueGreenStatus = Static<typeof BlueGreenStatusShape>;
export type NginxStatus = Static<typeof NginxStatusShape>;

/** An Nginx as the API serves it: the envelope (typed more tightly than the schema states it), spec and status. */
export interface Nginx {
  apiVersion: 'mycompany.com/v1';
  kind: 'Nginx';
  metadata: V1ObjectMeta;
  spec: NginxSpec;
  status?: NginxStatus;
}
