import { describe, expect, it } from 'vitest';
import { storedRow } from '../batch-statements.js';
import { genesisHash, linkRows, recordHash, STREAM_TABLES } from './audit-chain.js';
import { ChainWalk, type StoredLink } from './chain-walk.js';

const table = STREAM_TABLES.changes;

/** A change record as stored before the person columns existed (they read back as null). */
const legacy: Record<string, unknown> = {
  at: new Date('2026-11-26T10:00:00.000Z'),
  actor: 'eve',
  role: 'editor',
  verb: 'patch',
  namespace: 'shop',
  name: 'web',
  subresource: null,
  patchType: 'application/merge-patch+json',
  specBefore: '{"replicas":1}',
  specAfter: '{"replicas":2}',
  code: 200,
  reason: null,
  message: null,
  uid: 'u-1',
  resourceVersion: '5',
  userAgent: 'curl/8',
  door: 'controlplane',
  source: 'controlplane',
  auditId: 'ngx-rest-1',
  kubeUser: null,
  kubeGroups: null,
  impersonator: null,
  fieldManager: 'curl',
  generation: 2,
  joinKey: 'request:ngx-rest-1',
  completes: null,
  dedupeKey: null,
  chainSeq: 7,
};

/** Its hash after 'a'×64 as the chain computed it before the person columns (commit 4215f4a). */
const LEGACY_HASH = '8515c233d81523d999de9431683701f20a7328d16e66fd5d6e4826f95c4b24da';

const person = {
  actorEmail: 'eve@example.com',
  actorGroups: '["platform","system:authenticated"]',
  authenticatedBy: 'oidc',
};

function chainOf(rows: Record<string, unknown>[]): { links: StoredLink[]; walk: ChainWalk } {
  const linked = linkRows(
    table,
    { seq: 0, hash: genesisHash('changes') },
    rows.map((row) => storedRow(table, row)),
  );
  const links = linked.rows.map((row, index) => ({ ...row, id: index + 1 }) as StoredLink);
  return { links, walk: new ChainWalk('changes', { ...linked.head, prunedSeq: 0, prunedHash: null }) };
}

function verdict(rows: Record<string, unknown>[], alter?: (links: StoredLink[]) => void) {
  const { links, walk } = chainOf(rows);
  alter?.(links);
  walk.feed(links);
  return walk.finish();
}

const { chainSeq: _seq, ...unlinked } = legacy;

describe('the hash of a change record and the person columns added after the chain began', () => {
  it('hashes a record stored before them (the columns read back null) as the chain did then', () => {
    expect(recordHash(table, 'a'.repeat(64), legacy)).toBe(LEGACY_HASH);
    expect(
      recordHash(table, 'a'.repeat(64), {
        ...legacy,
        actorEmail: null,
        actorGroups: null,
        authenticatedBy: null,
      }),
    ).toBe(LEGACY_HASH);
  });

  it('covers them once set: the person is part of what the hash proves', () => {
    const withPerson = recordHash(table, 'a'.repeat(64), { ...legacy, ...person });
    expect(withPerson).not.toBe(LEGACY_HASH);
    expect(
      recordHash(table, 'a'.repeat(64), { ...legacy, ...person, actorEmail: 'mallory@example.com' }),
    ).not.toBe(withPerson);
    expect(
      recordHash(table, 'a'.repeat(64), { ...legacy, ...person, authenticatedBy: 'static-token' }),
    ).not.toBe(withPerson);
  });

  it('tells the columns apart: the same value in another person column hashes differently', () => {
    expect(recordHash(table, 'x', { ...legacy, actorEmail: 'oidc' })).not.toBe(
      recordHash(table, 'x', { ...legacy, authenticatedBy: 'oidc' }),
    );
  });

  it('verifies a chain of records from before and after the columns, and finds one whose person was changed', () => {
    const rows = [unlinked, { ...unlinked, ...person }, { ...unlinked, authenticatedBy: 'static-token' }];
    expect(verdict(rows)).toBeUndefined();
    expect(verdict(rows, (links) => (links[1]!.actorGroups = '["system:masters"]'))).toMatchObject({
      seq: 2,
      problem: 'altered',
    });
    expect(verdict(rows, (links) => (links[1]!.actorEmail = null))).toMatchObject({
      seq: 2,
      problem: 'altered',
    });
    expect(verdict(rows, (links) => (links[0]!.authenticatedBy = 'oidc'))).toMatchObject({
      seq: 1,
      problem: 'altered',
    });
  });
});
