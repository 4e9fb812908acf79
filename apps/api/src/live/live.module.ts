import { Module } from '@nestjs/common';
import { LiveGateway } from './live.gateway.js';

/** socket.io live updates for the UI, fed by the shared informers. */
@Module({ providers: [LiveGateway] })
export class LiveModule {}
