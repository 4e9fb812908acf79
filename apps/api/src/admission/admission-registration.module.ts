import { Module } from '@nestjs/common';
import { WebhookRegistrar } from './webhook-registrar.js';

/**
 * The admission webhook's registration with kube-apiserver, by the roles that reconcile: ROLE=all registers itself,
 * ROLE=controller the API's Service (so the process facing the Internet needs no right to webhook configurations).
 */
@Module({ providers: [WebhookRegistrar], exports: [WebhookRegistrar] })
export class AdmissionRegistrationModule {}
