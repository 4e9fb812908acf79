import { genesisHash, recordHash, STREAM_TABLES, type AuditStream } from './audit-chain.js';

/** A stream's head as stored: where its chain ends, and where retention cut its beginning. */
export interface StoredChainHead {
  seq: number;
  hash: string;
  prunedSeq: number;
  prunedHash: string | null;
}

/** A stored record as read back: its id, place, hash and every other column. */
export interface StoredLink {
  id: number;
  chainSeq: number;
  hash: string | null;
  [column: string]: unknown;
}

/** The first place a stream's chain does not hold. */
export interface BrokenLink {
  stream: AuditStream;
  /** The place where the chain breaks. */
  seq: number;
  /** The record stored there (absent when the record is missing). */
  id?: number;
  problem: 'altered' | 'missing' | 'tail-removed' | 'head-mismatch';
  detail: string;
}

/**
 * Walks one stream's chain in `chainSeq` order, a page at a time, and stops at the first broken link. Starts
 * where retention cut the chain (the record after `prunedSeq` must follow `prunedHash`, or the genesis hash when
 * nothing was pruned) and ends at the head: a record whose content does not give its hash is `altered`, a place
 * with no record is `missing` (records removed), a chain ending before the head's place is `tail-removed`, and a
 * head whose hash is not the last record's is `head-mismatch`.
 */
export class ChainWalk {
  private expectedSeq: number;
  private previous: string;
  private broken?: BrokenLink;
  /** Records checked so far. */
  checked = 0;

  constructor(
    readonly stream: AuditStream,
    private readonly head: StoredChainHead,
  ) {
    this.expectedSeq = head.prunedSeq + 1;
    this.previous = head.prunedSeq === 0 ? genesisHash(stream) : (head.prunedHash ?? '');
  }

  /** The place the next page starts from. */
  get nextSeq(): number {
    return this.expectedSeq;
  }

  get done(): boolean {
    return this.broken !== undefined || this.expectedSeq > this.head.seq;
  }

  /** Checks the next page (records at or after nextSeq, in order). False once the chain broke. */
  feed(page: readonly StoredLink[]): boolean {
    for (const link of page) {
      if (this.broken || link.chainSeq > this.head.seq) break;
      if (link.chainSeq !== this.expectedSeq) {
        const last = link.chainSeq - 1;
        this.broken = {
          stream: this.stream,
          seq: this.expectedSeq,
          problem: 'missing',
          detail:
            last === this.expectedSeq
              ? `no record at ${this.expectedSeq}`
              : `no records at ${this.expectedSeq}…${last} (${last - this.expectedSeq + 1})`,
        };
        break;
      }
      const expected = recordHash(STREAM_TABLES[this.stream], this.previous, link);
      if (link.hash !== expected) {
        this.broken = {
          stream: this.stream,
          seq: link.chainSeq,
          id: link.id,
          problem: 'altered',
          detail: `record ${link.id}: its content or the record before it changed (hash does not match)`,
        };
        break;
      }
      this.previous = link.hash;
      this.expectedSeq += 1;
      this.checked += 1;
    }
    return this.broken === undefined;
  }

  /** After the last page: the first broken link, or undefined when the whole kept chain holds. */
  finish(): BrokenLink | undefined {
    if (this.broken) return this.broken;
    if (this.expectedSeq <= this.head.seq)
      return {
        stream: this.stream,
        seq: this.expectedSeq,
        problem: 'tail-removed',
        detail: `the chain ends at ${this.expectedSeq - 1} but its head is at ${this.head.seq}`,
      };
    if (this.head.seq > this.head.prunedSeq && this.previous !== this.head.hash)
      return {
        stream: this.stream,
        seq: this.head.seq,
        problem: 'head-mismatch',
        detail: `the head's hash is not the hash of record ${this.head.seq}`,
      };
    return undefined;
  }
}
