import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { EventsController } from './events.controller.js';
import { PodsController } from './pods.controller.js';
import { RevisionsController } from './revisions.controller.js';
import { CanaryController } from './canary.controller.js';
import { WhoAmIController } from './whoami.controller.js';

/** The control plane's own endpoints under /controlplane/v1 (the audit ones live in AuditModule). */
@Module({
  controllers: [PodsController, EventsController, WhoAmIController, RevisionsController, CanaryController],
})
export class ControlPlaneModule {
  /**
   * The module with `writes`, the module that provides RevisionWrites (the REST layer's, whose writes a rollback
   * makes): controlplane/ may not import rest/ (API_LAYERS in eslint.config.js), so AppModule passes it in.
   */
  static withWrites(writes: NonNullable<ModuleMetadata['imports']>[number]): DynamicModule {
    return { module: ControlPlaneModule, imports: [writes] };
  }
}
