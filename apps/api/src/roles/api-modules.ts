import { AdmissionModule } from '../admission/admission.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { ControlPlaneModule } from '../controlplane/controlplane.module.js';
import { KubeAuditModule } from '../kube-audit/kube-audit.module.js';
import { LiveModule } from '../live/live.module.js';
import { RestModule } from '../rest/rest.module.js';
import { TimelineModule } from '../timeline/timeline.module.js';

/**
 * What serves people and clients: the audit's reads and refusals, sign-in and authorization, the REST API and the
 * control plane's endpoints, the live gateway, the change ingest (kube-apiserver's audit webhook), the timeline and
 * the admission webhook's endpoint.
 */
export const API_MODULES = [
  AuditModule,
  AuthModule,
  RestModule,
  ControlPlaneModule.withWrites(RestModule),
  LiveModule,
  KubeAuditModule,
  TimelineModule,
  AdmissionModule,
];
