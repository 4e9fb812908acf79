import { Inject, Injectable, Logger, type FactoryProvider, type OnApplicationShutdown } from '@nestjs/common';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ensureSqliteDirectory } from '../config/database-target.js';
import { createPrismaClient, type AuditPrismaClient } from './prisma-client.js';

/** Injection token of the audit database's Prisma client. */
export const AUDIT_DATABASE = Symbol('AuditPrismaClient');

/** Connects the audit database before any provider that injects `AUDIT_DATABASE` is made. */
export const auditDatabaseProvider: FactoryProvider<Promise<AuditPrismaClient>> = {
  provide: AUDIT_DATABASE,
  inject: [appConfig.KEY],
  useFactory: async (config: AppConfig) => {
    ensureSqliteDirectory(config.database);
    const client = await createPrismaClient(config.database);
    new Logger(PrismaService.name).log(`audit database: ${config.database.provider}`);
    return client;
  },
};

/** Owns the audit database connection for the process lifetime (closed last, after the audit trail's flush). */
@Injectable()
export class PrismaService implements OnApplicationShutdown {
  constructor(
    @Inject(AUDIT_DATABASE) readonly client: AuditPrismaClient,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  get provider(): string {
    return this.config.database.provider;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.$disconnect();
  }

  /** Round-trips a trivial query; throws when the database cannot be reached. */
  async ping(): Promise<void> {
    await this.client.$queryRawUnsafe('SELECT 1');
  }
}
