import type { AuditDatabase } from '../audit-database.js';
import type { AuditPrismaClient } from '../prisma-client.js';
import { AUDIT_STREAMS, type AuditStream } from './audit-chain.js';
import { ChainWalk, type BrokenLink, type StoredChainHead, type StoredLink } from './chain-walk.js';

/** What audit:verify found for one stream. */
export interface StreamVerdict {
  stream: AuditStream;
  /** Where the kept chain starts and ends (absent: nothing was ever chained). */
  head?: StoredChainHead;
  /** Records whose links held. */
  checked: number;
  /** Records stored before the chains existed, which no hash covers. */
  unchained: number;
  /** The first broken link; absent when the kept chain holds end to end. */
  broken?: BrokenLink;
}

/** Records read per query: large enough to be fast, small enough to keep the tool's memory flat. */
const PAGE_SIZE = 2_000;

/**
 * Checks every stream's hash chain in the audit database, reading records in chain order a page at a time
 * (ChainWalk), and stops each stream at its first broken link. Reads only.
 */
export async function verifyAuditChains(database: AuditDatabase): Promise<StreamVerdict[]> {
  const prisma = await database.client();
  const heads = new Map(
    (await prisma.auditChainHead.findMany()).map((head) => [head.stream as AuditStream, head] as const),
  );
  const verdicts: StreamVerdict[] = [];
  for (const stream of AUDIT_STREAMS) {
    const unchained = await countUnchained(prisma, stream);
    const head = heads.get(stream);
    if (!head) {
      verdicts.push({ stream, checked: 0, unchained });
      continue;
    }
    const walk = new ChainWalk(stream, head);
    while (!walk.done) {
      const page = await readLinks(prisma, stream, walk.nextSeq);
      if (!walk.feed(page) || page.length < PAGE_SIZE) break;
    }
    const broken = walk.finish();
    verdicts.push({ stream, head, checked: walk.checked, unchained, ...(broken && { broken }) });
  }
  return verdicts;
}

async function readLinks(
  prisma: AuditPrismaClient,
  stream: AuditStream,
  from: number,
): Promise<StoredLink[]> {
  const query = {
    where: { chainSeq: { gte: from } },
    orderBy: { chainSeq: 'asc' as const },
    take: PAGE_SIZE,
  };
  const rows =
    stream === 'changes'
      ? await prisma.changeRecord.findMany(query)
      : stream === 'reconciles'
        ? await prisma.reconcileRecord.findMany(query)
        : await prisma.timelineEntry.findMany(query);
  return rows as StoredLink[];
}

function countUnchained(prisma: AuditPrismaClient, stream: AuditStream): Promise<number> {
  const where = { where: { chainSeq: null } };
  return stream === 'changes'
    ? prisma.changeRecord.count(where)
    : stream === 'reconciles'
      ? prisma.reconcileRecord.count(where)
      : prisma.timelineEntry.count(where);
}

/** One line per stream, as audit:verify prints it. */
export function verdictLine({ stream, head, checked, unchained, broken }: StreamVerdict): string {
  const before = unchained > 0 ? `; ${unchained} stored before the chain, not covered` : '';
  if (!head) return `${stream}: no chained records${before}`;
  if (broken)
    return `${stream}: BROKEN at ${broken.seq} (${broken.problem}): ${broken.detail}; ${checked} records before it hold${before}`;
  const span = head.seq > head.prunedSeq ? `${head.prunedSeq + 1}…${head.seq}` : 'none kept';
  const pruned = head.prunedSeq > 0 ? `, 1…${head.prunedSeq} pruned by retention` : '';
  return `${stream}: ${checked} records intact (${span}${pruned})${before}`;
}
