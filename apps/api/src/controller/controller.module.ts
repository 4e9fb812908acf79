import { Module } from '@nestjs/common';
import { AnalysisModule } from '../analysis/analysis.module.js';
import { CrdInstaller } from './crd-installer.js';
import { NginxControllerService } from './nginx-controller.service.js';

/**
 * The Nginx controller: installs the CRD, then reconciles Nginx objects into pods while leading; canary analysis
 * steps measure through the AnalysisModule's Prometheus measurer.
 */
@Module({
  imports: [AnalysisModule],
  providers: [CrdInstaller, NginxControllerService],
  exports: [NginxControllerService],
})
export class ControllerModule {}
