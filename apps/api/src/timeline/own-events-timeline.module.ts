import { Module } from '@nestjs/common';
import { OwnEventsTimeline } from './own-events-timeline.js';
import { PodDirectoryModule } from './pod-directory.module.js';

/** The controller's own Events in the timeline, in the roles that run the controller. */
@Module({ imports: [PodDirectoryModule], providers: [OwnEventsTimeline] })
export class OwnEventsTimelineModule {}
