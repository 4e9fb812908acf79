import { Global, Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail.service.js';
import { PrismaService } from './prisma.service.js';

@Global()
@Module({ providers: [PrismaService, AuditTrail], exports: [PrismaService, AuditTrail] })
export class AuditModule {}
