import { Module } from '@nestjs/common';
import { EventsController } from './events.controller.js';
import { PodsController } from './pods.controller.js';
import { WhoAmIController } from './whoami.controller.js';

/** The control plane's own read endpoints under /controlplane/v1 (the audit ones live in AuditModule). */
@Module({ controllers: [PodsController, EventsController, WhoAmIController] })
export class ControlPlaneModule {}
