import { Module } from '@nestjs/common';
import { PodDirectory } from './pod-directory.js';

/** The one PodDirectory of a process, shared by what records Events about pods (the controller's, the API's). */
@Module({ providers: [PodDirectory], exports: [PodDirectory] })
export class PodDirectoryModule {}
