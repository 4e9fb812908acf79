import { Inject, Injectable, Logger, type FactoryProvider, type OnApplicationShutdown } from '@nestjs/common';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ensureSqliteDirectory } from '../config/database-target.js';
import { AuditDatabase } from './audit-database.js';
import type { AuditPrismaClient } from './prisma-client.js';

/** Injection token of the audit database (AuditDatabase). */
export const AUDIT_DATABASE = Symbol('AuditDatabase');

/** Connects the audit database before any provider that injects `AUDIT_DATABASE` is made. */
export const auditDatabaseProvider: FactoryProvider<Promise<AuditDatabase>> = {
  provide: AUDIT_DATABASE,
  inject: [appConfig.KEY],
  useFactory: async (config: AppConfig) => {
    ensureSqliteDirectory(config.database);
    const database = await AuditDatabase.connect(config.database);
    new Logger(PrismaService.name).log(`audit database: ${config.database.provider}`);
    return database;
  },
};

/** Owns the audit database connection for the process lifetime (closed last, after the audit trail's flush). */
@Injectable()
export class PrismaService implements OnApplicationShutdown {
  constructor(
    @Inject(AUDIT_DATABASE) private readonly database: AuditDatabase,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  get provider(): string {
    return this.config.database.provider;
  }

  /** Prisma's client for reads, made on the first call (see AuditDatabase). */
  client(): Promise<AuditPrismaClient> {
    return this.database.client();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }

  /** Round-trips a trivial query; throws when the database cannot be reached. */
  async ping(): Promise<void> {
    await this.database.ping();
  }
}
