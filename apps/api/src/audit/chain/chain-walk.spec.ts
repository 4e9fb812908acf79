import { describe, expect, it } from 'vitest';
import { storedRow } from '../batch-statements.js';
import { genesisHash, linkRows, recordHash, STREAM_TABLES } from './audit-chain.js';
import { ChainWalk, type StoredChainHead, type StoredLink } from './chain-walk.js';

const table = STREAM_TABLES.reconciles;

function reconcile(index: number): Record<string, unknown> {
  return storedRow(table, {
    startedAt: new Date(Date.UTC(2026, 10, 26, 10, 0, index)),
    finishedAt: new Date(Date.UTC(2026, 10, 26, 10, 0, index, 5)),
    durationMs: 5,
    namespace: 'shop',
    name: `web-${index}`,
    trigger: 'resync',
    result: 'success',
    instanceId: 'a',
  });
}

/** `count` records chained from the genesis, as stored (ids from 100), and the head the sink would keep. */
function chain(count: number): { links: StoredLink[]; head: StoredChainHead } {
  const { rows, head } = linkRows(table, { seq: 0, hash: genesisHash('reconciles') }, [
    ...Array.from({ length: count }, (_, index) => reconcile(index)),
  ]);
  const links = rows.map((row, index) => ({ ...row, id: 100 + index }) as StoredLink);
  return { links, head: { ...head, prunedSeq: 0, prunedHash: null } };
}

function walk(head: StoredChainHead, links: readonly StoredLink[], pageSize = 3) {
  const walker = new ChainWalk('reconciles', head);
  while (!walker.done) {
    const page = links.filter((link) => link.chainSeq >= walker.nextSeq).slice(0, pageSize);
    if (!walker.feed(page) || page.length < pageSize) break;
  }
  return { broken: walker.finish(), checked: walker.checked };
}

describe('the audit hash chain', () => {
  it('links each record to the one before: places 1, 2, 3… and hashes over content and the previous hash', () => {
    const { links, head } = chain(3);
    expect(links.map((link) => link.chainSeq)).toEqual([1, 2, 3]);
    expect(links[0]!.hash).toBe(recordHash(table, genesisHash('reconciles'), links[0]!));
    expect(links[1]!.hash).toBe(recordHash(table, links[0]!.hash!, links[1]!));
    expect(head).toMatchObject({ seq: 3, hash: links[2]!.hash });
  });

  it('hashes a record the same whether its values are the writer’s or as Prisma reads them back', () => {
    const [link] = chain(1).links;
    const readBack = { ...link!, startedAt: new Date(link!.startedAt as Date), durationMs: 5, id: 7 };
    expect(recordHash(table, 'x', readBack)).toBe(recordHash(table, 'x', link!));
  });

  it('holds end to end across pages', () => {
    const { links, head } = chain(10);
    expect(walk(head, links)).toEqual({ broken: undefined, checked: 10 });
  });

  it('reports an altered record at its place, with its id', () => {
    const { links, head } = chain(6);
    links[3] = { ...links[3]!, name: 'someone-else' };
    expect(walk(head, links)).toMatchObject({ broken: { seq: 4, id: 103, problem: 'altered' }, checked: 3 });
  });

  it('reports a record whose hash was recomputed alone: the next link no longer follows it', () => {
    const { links, head } = chain(6);
    const forged = { ...links[2]!, name: 'forged' };
    links[2] = { ...forged, hash: recordHash(table, links[1]!.hash!, forged) };
    expect(walk(head, links).broken).toMatchObject({ seq: 4, problem: 'altered' });
  });

  it('reports removed records in the middle as missing, naming the places', () => {
    const { links, head } = chain(8);
    const kept = links.filter((link) => link.chainSeq < 4 || link.chainSeq > 6);
    expect(walk(head, kept).broken).toMatchObject({
      seq: 4,
      problem: 'missing',
      detail: 'no records at 4…6 (3)',
    });
  });

  it('reports records removed at the end against the head', () => {
    const { links, head } = chain(5);
    expect(walk(head, links.slice(0, 3)).broken).toMatchObject({ seq: 4, problem: 'tail-removed' });
  });

  it('reports a head whose hash is not the last record’s', () => {
    const { links, head } = chain(2);
    expect(walk({ ...head, hash: 'f'.repeat(64) }, links).broken).toMatchObject({ problem: 'head-mismatch' });
  });

  it('starts after what retention pruned, from the last pruned hash', () => {
    const { links, head } = chain(6);
    const pruned = { ...head, prunedSeq: 2, prunedHash: links[1]!.hash };
    expect(walk(pruned, links.slice(2))).toEqual({ broken: undefined, checked: 4 });
    expect(walk({ ...pruned, prunedHash: 'f'.repeat(64) }, links.slice(2)).broken).toMatchObject({
      seq: 3,
      problem: 'altered',
    });
  });

  it('holds with nothing kept after retention pruned everything', () => {
    const { head } = chain(3);
    expect(walk({ ...head, prunedSeq: 3, prunedHash: head.hash }, [])).toEqual({
      broken: undefined,
      checked: 0,
    });
  });
});
