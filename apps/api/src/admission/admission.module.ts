import { Module } from '@nestjs/common';
import { AdmissionController } from './admission.controller.js';

/** The validating admission webhook for Nginxes: its endpoint, served by the roles that serve the API. */
@Module({ controllers: [AdmissionController] })
export class AdmissionModule {}
