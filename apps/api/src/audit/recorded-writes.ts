import type { AuditDatabase } from './audit-database.js';
import { CHANGE_RECORD_TABLE } from './audit-tables.js';
import { inList, joinedStatement } from './batch-statements.js';

/** A write looked up by recordedWrites: by uid and resourceVersion, or a delete by uid; `key` names it in the answer. */
export type RecordedWrite = { uid: string; key: string } & (
  { deleted: true; resourceVersion?: undefined } | { deleted?: false; resourceVersion: string }
);

/** Most writes looked up by one query (two bound values each at most). */
const WRITES_PER_QUERY = 500;

const DELETE_VERBS = `('delete', 'deletecollection')`;

/**
 * Which of `writes` a successful change record of any door covers: a write by the Nginx's uid and the
 * resourceVersion it left, a delete by any delete of the uid. Answers their `key`s. One query per 500 writes, as
 * SQL on the driver adapter (uid and resourceVersion are indexed together), so the process that sweeps observed
 * changes never loads Prisma's client and query compiler for it.
 */
export async function recordedWrites(
  database: AuditDatabase,
  writes: readonly RecordedWrite[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let start = 0; start < writes.length; start += WRITES_PER_QUERY) {
    const chunk = writes.slice(start, start + WRITES_PER_QUERY);
    const uids = [...new Set(chunk.map((write) => write.uid))];
    const versions = [...new Set(chunk.flatMap((write) => (write.deleted ? [] : [write.resourceVersion])))];
    const rows = await database.read(
      joinedStatement(
        `SELECT "uid", "resourceVersion", "verb" FROM "${CHANGE_RECORD_TABLE.name}" ` +
          'WHERE "code" >= 200 AND "code" < 300 AND "uid" IN ',
        inList('(', uids, ')'),
        ` AND ("verb" IN ${DELETE_VERBS}`,
        ...(versions.length > 0 ? [' OR "resourceVersion" IN ', inList('(', versions, ')')] : []),
        ')',
      ),
    );
    for (const [uid, resourceVersion, verb] of rows)
      found.add(
        verb === 'delete' || verb === 'deletecollection' ? `${uid}/deleted` : `${uid}@${resourceVersion}`,
      );
  }
  return new Set(
    writes
      .filter((write) =>
        found.has(write.deleted ? `${write.uid}/deleted` : `${write.uid}@${write.resourceVersion}`),
      )
      .map((write) => write.key),
  );
}
