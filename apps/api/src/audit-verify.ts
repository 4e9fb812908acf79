// `npm run audit:verify`: checks the audit database's hash chains (DATABASE_URL, as the app reads it) and reports
// each stream's first broken link. Exit code 0: every kept chain holds; 1: a link is broken; 2: could not check.
import { AuditDatabase } from './audit/audit-database.js';
import { verdictLine, verifyAuditChains } from './audit/chain/chain-verifier.js';
import { databaseTarget } from './config/database-target.js';

async function main(): Promise<number> {
  const database = await AuditDatabase.connect(databaseTarget(process.env.DATABASE_URL));
  try {
    const verdicts = await verifyAuditChains(database);
    for (const verdict of verdicts) console.log(verdictLine(verdict));
    return verdicts.some((verdict) => verdict.broken) ? 1 : 0;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`audit:verify could not check the audit database: ${lastLine(error)}`);
    process.exit(2);
  },
);

/** Prisma's errors carry the query and a code frame first; the reason is their last line. */
function lastLine(error: unknown): string {
  const lines = (error instanceof Error ? error.message : String(error))
    .split('\n')
    .map((line) => line.trim());
  return lines.filter(Boolean).at(-1) ?? 'unknown error';
}
