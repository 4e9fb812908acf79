import { Module } from '@nestjs/common';
import { ControllerModule } from '../controller/controller.module.js';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';

@Module({ imports: [ControllerModule], controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
