import type { AuditTransaction, SqlStatement } from '../audit-database.js';
import { AUDIT_CHAIN_HEAD_TABLE } from '../audit-tables.js';
import { AUDIT_STREAMS, genesisHash, type AuditStream, type ChainHead } from './audit-chain.js';
import type { StoredChainHead } from './chain-walk.js';

const TABLE = AUDIT_CHAIN_HEAD_TABLE.name;

/**
 * Takes every stream's head for the rest of the transaction and reads it (a missing head starts at its genesis
 * hash): so writers of any number of processes extend each chain one after the other. The first statement is a
 * write, which on SQLite takes the database's write lock before anything is read (a read first could not be
 * upgraded once another process had written); on PostgreSQL the heads' rows are locked FOR UPDATE, always in the
 * same order.
 */
export async function lockChainHeads(
  transaction: AuditTransaction,
): Promise<Map<AuditStream, StoredChainHead>> {
  await transaction.execute({
    strings: [
      `INSERT INTO "${TABLE}" ("stream", "seq", "hash", "prunedSeq") VALUES (`,
      ...AUDIT_STREAMS.flatMap((_, index) => [
        ', 0, ',
        index < AUDIT_STREAMS.length - 1 ? ', 0), (' : ', 0) ON CONFLICT ("stream") DO NOTHING',
      ]),
    ],
    values: AUDIT_STREAMS.flatMap((stream) => [stream, genesisHash(stream)]),
    types: AUDIT_STREAMS.flatMap(() => ['String', 'String'] as const),
  });
  const rows = await transaction.query({
    strings: [
      `SELECT "stream", "seq", "hash", "prunedSeq", "prunedHash" FROM "${TABLE}" ORDER BY "stream"` +
        (transaction.provider === 'postgresql' ? ' FOR UPDATE' : ''),
    ],
    values: [],
    types: [],
  });
  const heads = new Map<AuditStream, StoredChainHead>();
  for (const [stream, seq, hash, prunedSeq, prunedHash] of rows)
    heads.set(stream as AuditStream, {
      seq: Number(seq),
      hash: String(hash),
      prunedSeq: Number(prunedSeq),
      prunedHash: prunedHash === null ? null : String(prunedHash),
    });
  return heads;
}

/** Moves a stream's head to the record just added. */
export function saveChainHead(stream: AuditStream, head: ChainHead): SqlStatement {
  return {
    strings: [`UPDATE "${TABLE}" SET "seq" = `, ', "hash" = ', ' WHERE "stream" = ', ''],
    values: [head.seq, head.hash, stream],
    types: ['Int', 'String', 'String'],
  };
}

/** Records where retention cut a stream's chain: the last pruned record's place and hash. */
export function savePrunedHead(stream: AuditStream, pruned: ChainHead): SqlStatement {
  return {
    strings: [`UPDATE "${TABLE}" SET "prunedSeq" = `, ', "prunedHash" = ', ' WHERE "stream" = ', ''],
    values: [pruned.seq, pruned.hash, stream],
    types: ['Int', 'String', 'String'],
  };
}
