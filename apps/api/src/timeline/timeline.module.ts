import { Module } from '@nestjs/common';
import { PodDirectory } from './pod-directory.js';
import { TimelineCollector } from './timeline-collector.service.js';
import { TimelineController } from './timeline.controller.js';

/** The causal timeline of an Nginx: the evidence it keeps, and (timeline.controller.ts) how it is read. */
@Module({
  controllers: [TimelineController],
  providers: [PodDirectory, TimelineCollector],
  exports: [PodDirectory],
})
export class TimelineModule {}
