import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { callerOf } from '../auth/bearer-auth.guard.js';

/** `/controlplane/v1/whoami`: the signed-in token's name, role and namespaces, so the UI can show what it may do. */
@Controller('controlplane/v1')
export class WhoAmIController {
  @Get('whoami')
  whoami(@Req() req: Request) {
    const caller = callerOf(req)!;
    return {
      apiVersion: 'controlplane/v1',
      kind: 'Identity',
      name: caller.name,
      role: caller.role,
      namespaces: caller.namespaces ?? null,
    };
  }
}
