import { describe, expect, it } from 'vitest';
import { Prisma } from '../../generated/prisma-sqlite/index.js';
import { refusalReason } from './database-refusal.js';

// The errors below have the shapes Prisma 6.19 and its adapters gave against real PostgreSQL and SQLite databases
// (test/audit-database.test.ts checks the same decisions there).

/** As @prisma/driver-adapter-utils makes it: the driver's error, mapped by the adapter, in `cause`. */
class DriverAdapterError extends Error {
  override name = 'DriverAdapterError';
  constructor(override readonly cause: Record<string, unknown>) {
    super(String(cause.message ?? cause.kind));
  }
}

const clientVersion = '6.19.3';
/** Prisma's messages start with the call site and the arguments it was given (here: a row's content). */
const invocation =
  'Invalid `prisma.changeRecord.createMany()` invocation in\n/app/sink.js:1:1\n\n  data: [{ name: "secret-spec" }]\n\n';

function known(code: string, cause?: Record<string, unknown>, message = 'the message') {
  return new Prisma.PrismaClientKnownRequestError(`${invocation}${message}`, {
    code,
    clientVersion,
    meta: {
      modelName: 'ChangeRecord',
      ...(cause ? { driverAdapterError: { name: 'DriverAdapterError', cause } } : {}),
    },
  });
}

describe('refusalReason: the database refused the data', () => {
  it('PostgreSQL data exceptions (class 22), e.g. NUL in text', () => {
    const nul = new DriverAdapterError({
      originalCode: '22021',
      originalMessage: 'invalid byte sequence for encoding "UTF8": 0x00',
      kind: 'postgres',
      code: '22021',
      severity: 'ERROR',
      message: 'invalid byte sequence for encoding "UTF8": 0x00',
    });
    expect(refusalReason(nul)).toBe('22021 invalid byte sequence for encoding "UTF8": 0x00');
    const outOfRange = known('P2020', {
      originalCode: '22003',
      originalMessage: 'value "1099511627776" is out of range for type integer',
      kind: 'ValueOutOfRange',
    });
    expect(refusalReason(outOfRange)).toBe('P2020 value "1099511627776" is out of range for type integer');
  });

  it('PostgreSQL integrity constraints (class 23), without the failing row PostgreSQL puts in detail', () => {
    const check = new DriverAdapterError({
      originalCode: '23514',
      originalMessage: 'new row for relation "ChangeRecord" violates check constraint "refuse"',
      kind: 'postgres',
      code: '23514',
      severity: 'ERROR',
      message: 'new row for relation "ChangeRecord" violates check constraint "refuse"',
      detail:
        'Failing row contains (2, 2026-11-22 20:52:45.395, alice, editor, create, default, refused, …).',
    });
    expect(refusalReason(check)).toBe(
      '23514 new row for relation "ChangeRecord" violates check constraint "refuse"',
    );
    expect(
      refusalReason(known('P2002', { originalCode: '23505', kind: 'UniqueConstraintViolation' })),
    ).toMatch(/^P2002\b/);
  });

  it('PostgreSQL program limits (class 54): an index entry too large', () => {
    const indexRow = new DriverAdapterError({
      originalCode: '54000',
      originalMessage:
        'index row size 3048 exceeds btree version 4 maximum 2704 for index "ChangeRecord_namespace_name_at_idx"',
      kind: 'postgres',
      code: '54000',
    });
    expect(refusalReason(indexRow)).toMatch(/^54000 index row size 3048 exceeds/);
  });

  it('SQLite constraints, mapped by the adapter or passed through with the driver’s code', () => {
    const trigger = known(
      'P2003',
      {
        originalCode: 'SQLITE_CONSTRAINT_TRIGGER',
        originalMessage: 'refused by test',
        kind: 'ForeignKeyConstraintViolation',
      },
      'Foreign key constraint violated on the foreign key',
    );
    expect(refusalReason(trigger)).toBe('P2003 refused by test');
    const check = known('SQLITE_CONSTRAINT_CHECK', undefined, "CHECK constraint failed: name <> 'refused'");
    expect(refusalReason(check)).toBe("SQLITE_CONSTRAINT_CHECK CHECK constraint failed: name <> 'refused'");
    expect(refusalReason(known('SQLITE_TOOBIG', undefined, 'string or blob too big'))).toMatch(
      /^SQLITE_TOOBIG/,
    );
    expect(refusalReason(known('SQLITE_MISMATCH', undefined, 'datatype mismatch'))).toMatch(
      /^SQLITE_MISMATCH/,
    );
  });

  it('a value the client refuses before sending, with only its last line (not the arguments it echoes)', () => {
    const invalid = new Prisma.PrismaClientValidationError(
      `${invocation}Invalid value for argument \`at\`: Provided Date object is invalid. Expected Date.`,
      { clientVersion },
    );
    expect(refusalReason(invalid)).toBe(
      'invalid value Invalid value for argument `at`: Provided Date object is invalid. Expected Date.',
    );
    expect(refusalReason(invalid)).not.toContain('secret-spec');
  });

  it('keeps the reason short and storable', () => {
    const long = new DriverAdapterError({
      originalCode: '22P02',
      originalMessage: `bad "${'x\u0000'.repeat(500)}"`,
    });
    const reason = refusalReason(long)!;
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(200);
    expect(reason).not.toContain('\u0000');
  });
});

describe('refusalReason: the database is away (undefined: keep the rows and retry)', () => {
  it.each([
    [
      'PostgreSQL not reachable',
      known('P1001', { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 1 }),
    ],
    ['connection reset', known('P1017', { kind: 'ConnectionClosed' })],
    ['socket timeout', known('P1008', { kind: 'SocketTimeout' })],
    [
      'SQLite busy',
      known('P1008', {
        originalCode: 'SQLITE_BUSY',
        originalMessage: 'database is locked',
        kind: 'SocketTimeout',
      }),
    ],
    ['SQLite locked, passed through', known('SQLITE_LOCKED', undefined, 'database table is locked')],
    ['SQLite disk full', known('SQLITE_FULL', undefined, 'database or disk is full')],
    ['SQLite read-only', known('SQLITE_READONLY', undefined, 'attempt to write a readonly database')],
    ['database missing', known('P1003', { originalCode: '3D000', kind: 'DatabaseDoesNotExist', db: 'nodb' })],
    ['bad password', known('P1000', { originalCode: '28P01', kind: 'AuthenticationFailed', user: 'ngx' })],
    [
      'too many connections (class 53)',
      known('P2037', { originalCode: '53300', kind: 'TooManyConnections' }),
    ],
    [
      'server shutting down (class 57)',
      new DriverAdapterError({
        originalCode: '57P01',
        kind: 'postgres',
        code: '57P01',
        message: 'terminating connection',
      }),
    ],
    [
      'serialization failure (class 40)',
      known('P2034', { originalCode: '40001', kind: 'TransactionWriteConflict' }),
    ],
    ['table missing (not migrated)', known('P2021', { originalCode: '42P01', kind: 'TableDoesNotExist' })],
    [
      'a raw socket error',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['an unknown request error', new Prisma.PrismaClientUnknownRequestError('JSON Error', { clientVersion })],
    ['a plain error', new Error('boom')],
    ['not an error at all', 'boom'],
    ['nothing', undefined],
  ])('%s', (_label, error) => {
    expect(refusalReason(error)).toBeUndefined();
  });
});
