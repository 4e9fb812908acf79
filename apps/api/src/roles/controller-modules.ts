import { AdmissionRegistrationModule } from '../admission/admission-registration.module.js';
import { ControllerModule } from '../controller/controller.module.js';
import { ApiserverAuditLossesModule } from '../kube-audit/apiserver-audit-losses.module.js';
import { NotificationsModule } from '../notifications/notifications.module.js';
import { OwnEventsTimelineModule } from '../timeline/own-events-timeline.module.js';

/**
 * What reconciles: the controller (its informers, the Lease, the audit of its reconciles), the Events it writes kept
 * in the timeline, the poller of kube-apiserver's audit losses (while leading) and the admission webhook's
 * registration, and the notifications of rollouts (sent by the leader).
 */
export const CONTROLLER_MODULES = [
  ControllerModule,
  ApiserverAuditLossesModule,
  AdmissionRegistrationModule,
  OwnEventsTimelineModule,
  NotificationsModule,
];
