import { createRequire } from 'node:module';
import type { PrismaClient } from '../../generated/prisma-sqlite/index.js';
import type { DatabaseTarget } from '../config/database-target.js';

export type AuditPrismaClient = PrismaClient;

type PrismaOptions = NonNullable<ConstructorParameters<typeof PrismaClient>[0]>;
type DriverAdapterFactory = NonNullable<PrismaOptions['adapter']>;
type ConnectedAdapter = Awaited<ReturnType<DriverAdapterFactory['connect']>>;

const require = createRequire(import.meta.url);

/**
 * The generated client for the target's provider. Each provider has its own (from the twin schemas); both expose
 * the same models, so the SQLite client's type describes either. Loaded on first call: the module and its query
 * compiler are what make a client cost memory.
 */
function generatedClient(target: DatabaseTarget): typeof PrismaClient {
  const path =
    target.provider === 'postgresql'
      ? '../../generated/prisma-postgresql/index.js'
      : '../../generated/prisma-sqlite/index.js';
  return (require(path) as { PrismaClient: typeof PrismaClient }).PrismaClient;
}

/** A Prisma client over an adapter already connected: AuditDatabase shares its connection this way. */
export function prismaClientOver(target: DatabaseTarget, adapter: ConnectedAdapter): AuditPrismaClient {
  const PrismaClientOfTarget = generatedClient(target);
  const factory: DriverAdapterFactory = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    connect: async () => adapter,
  };
  return new PrismaClientOfTarget({ adapter: factory });
}
