import { Module } from '@nestjs/common';
import { AdmissionController } from './admission.controller.js';
import { WebhookRegistrar } from './webhook-registrar.js';

/** The validating admission webhook for Nginxes: its endpoint, and its registration with kube-apiserver. */
@Module({ controllers: [AdmissionController], providers: [WebhookRegistrar] })
export class AdmissionModule {}
