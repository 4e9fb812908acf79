import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ensureSqliteDirectory } from './database-target.js';
import { createPrismaClient, type AuditPrismaClient } from './prisma-client.js';

/** Owns the audit database connection for the process lifetime (closed last, after the audit trail's flush). */
@Injectable()
export class PrismaService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(PrismaService.name);
  private prisma: AuditPrismaClient | undefined;

  constructor(@Inject(appConfig.KEY) private readonly config: AppConfig) {}

  get client(): AuditPrismaClient {
    if (!this.prisma) throw new Error('PrismaService used before module init');
    return this.prisma;
  }

  get provider(): string {
    return this.config.database.provider;
  }

  async onModuleInit(): Promise<void> {
    ensureSqliteDirectory(this.config.database);
    this.prisma = await createPrismaClient(this.config.database);
    this.logger.log(`audit database: ${this.config.database.provider}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.prisma?.$disconnect();
  }

  /** Round-trips a trivial query; throws when the database cannot be reached. */
  async ping(): Promise<void> {
    await this.client.$queryRawUnsafe('SELECT 1');
  }
}
