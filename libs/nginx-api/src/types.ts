import type { V1ObjectMeta } from '@kubernetes/client-node';

export interface NginxSpec {
  /** How many nginx pods to run (0 to MAX_REPLICAS). */
  replicas: number;
  /** Container image; defaults to nginx:latest. */
  image?: string;
}

/** A standard metav1.Condition. */
export interface NginxCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface NginxStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  /** A short human sentence about the state, e.g. "2 of 3 pods ready". */
  message?: string;
  conditions?: NginxCondition[];
  /** Label selector of the pods, as a string (for the scale subresource). */
  selector?: string;
}

export interface Nginx {
  apiVersion: 'mycompany.com/v1';
  kind: 'Nginx';
  metadata: V1ObjectMeta;
  spec: NginxSpec;
  status?: NginxStatus;
}
