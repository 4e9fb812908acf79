import { Module } from '@nestjs/common';
import { ControllerModule } from '../controller/controller.module.js';
import { NotificationsService } from './notifications.service.js';

/** Rollout notifications (NOTIFICATIONS_FILE), in the roles that run the controller. */
@Module({ imports: [ControllerModule], providers: [NotificationsService] })
export class NotificationsModule {}
