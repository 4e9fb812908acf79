import { Module } from '@nestjs/common';
import { CrdInstaller } from './crd-installer.js';

/** The Nginx controller. For now it owns the CRD's installation; the reconciler joins it next. */
@Module({ providers: [CrdInstaller] })
export class ControllerModule {}
