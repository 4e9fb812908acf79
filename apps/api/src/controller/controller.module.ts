import { Module } from '@nestjs/common';
import { AnalysisModule } from '../analysis/analysis.module.js';
import { ControllerInformers } from './controller-informers.js';
import { CrdInstaller } from './crd-installer.js';
import { NginxControllerService } from './nginx-controller.service.js';

/**
 * The Nginx controller: installs the CRD, then reconciles Nginx objects into pods while leading, from the shared
 * informers and its own (ControllerInformers); canary analysis steps measure through the AnalysisModule's
 * Prometheus measurer.
 */
@Module({
  imports: [AnalysisModule],
  providers: [ControllerInformers, CrdInstaller, NginxControllerService],
  exports: [NginxControllerService, ControllerInformers],
})
export class ControllerModule {}
