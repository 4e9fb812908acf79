import { Module } from '@nestjs/common';
import { RestModule } from '../rest/rest.module.js';
import { PodDirectoryModule } from './pod-directory.module.js';
import { TimelineCollector } from './timeline-collector.service.js';
import { TimelineController } from './timeline.controller.js';

/** The causal timeline of an Nginx: the evidence it keeps, and (timeline.controller.ts) how it is read. */
@Module({
  // RestModule: its WatchSlots, one count of open watches per token for every watch the process serves.
  imports: [RestModule, PodDirectoryModule],
  controllers: [TimelineController],
  providers: [TimelineCollector],
  exports: [PodDirectoryModule],
})
export class TimelineModule {}
