import { Module } from '@nestjs/common';
import { CrdInstaller } from './crd-installer.js';
import { NginxControllerService } from './nginx-controller.service.js';

/** The Nginx controller: installs the CRD, then reconciles Nginx objects into pods while leading. */
@Module({ providers: [CrdInstaller, NginxControllerService], exports: [NginxControllerService] })
export class ControllerModule {}
