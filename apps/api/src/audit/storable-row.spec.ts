import { describe, expect, it } from 'vitest';
import type { ChangeRecordRow } from './change-record.js';
import type { ReconcileRecordRow } from './reconcile-record.js';
import {
  JSON_TEXT_MAX_BYTES,
  MESSAGE_MAX_BYTES,
  TEXT_MAX_BYTES,
  storableRow,
  storableText,
} from './storable-row.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** True when the text holds a UTF-16 surrogate outside a pair (what String#isWellFormed, ES2024, checks). */
const hasLoneSurrogate = (text: string) => /\p{Cs}/u.test(text);

const change: ChangeRecordRow = {
  at: new Date(0),
  actor: 'alice',
  role: 'editor',
  verb: 'create',
  namespace: 'default',
  name: 'web',
  subresource: null,
  patchType: null,
  specBefore: null,
  specAfter: '{"replicas":1}',
  code: 422,
  reason: 'Invalid',
  message: 'metadata.name: Invalid value',
  uid: null,
  resourceVersion: null,
  userAgent: 'curl/8',
};

describe('storableText', () => {
  it('replaces NUL and lone surrogates with U+FFFD, and keeps surrogate pairs', () => {
    expect(storableText('a\u0000b', 100)).toBe('a\uFFFDb');
    expect(storableText('\ud800x\udfff', 100)).toBe('\uFFFDx\uFFFD');
    expect(storableText('\udc00\ud800', 100)).toBe('\uFFFD\uFFFD'); // reversed: two lone halves
    expect(storableText('web-😀', 100)).toBe('web-😀');
    expect(storableText('a\ud83d', 100)).toBe('a\uFFFD'); // a pair cut in half upstream
  });

  it('keeps text within the bound as it is', () => {
    const exact = 'é'.repeat(50); // 100 bytes
    expect(storableText(exact, 100)).toBe(exact);
    expect(storableText('', 10)).toBe('');
  });

  it('cuts overlong text to the bound in UTF-8 bytes, at a character boundary, with the original size', () => {
    const long = '😀'.repeat(1_000); // 4,000 bytes
    const cut = storableText(long, 1_024);
    expect(bytes(cut)).toBeLessThanOrEqual(1_024);
    expect(cut).toMatch(/^(😀)+…\[cut from 4000 bytes\]$/);
    expect(hasLoneSurrogate(cut)).toBe(false);

    const ascii = storableText('x'.repeat(2_000), 1_024);
    expect(bytes(ascii)).toBe(1_024);
    expect(ascii.endsWith('…[cut from 2000 bytes]')).toBe(true);
  });

  it('measures the length after replacing: a NUL (1 byte) becomes U+FFFD (3 bytes)', () => {
    const cut = storableText('\u0000'.repeat(400), 1_024);
    expect(bytes(cut)).toBeLessThanOrEqual(1_024);
    expect(cut).toMatch(/^\uFFFD+…\[cut from 1200 bytes\]$/);
  });

  it('stays within a bound too small for the marker', () => {
    expect(storableText('abcdef', 4)).toBe('abcd');
  });
});

describe('storableRow', () => {
  it('cleans every string field of a change record, and leaves the others and the input alone', () => {
    const dirty: ChangeRecordRow = {
      ...change,
      actor: 'al\u0000ice',
      namespace: 'team\ud800',
      name: 'web\u0000\udfff',
      message: 'metadata.name: Invalid value: "web\u0000"',
      userAgent: 'agent\u0000',
      specAfter: '{"name":"\\u0000"}', // JSON text: NUL escaped, stored as it is
    };
    const stored = storableRow(dirty);
    expect(stored).toEqual({
      ...dirty,
      actor: 'al\uFFFDice',
      namespace: 'team\uFFFD',
      name: 'web\uFFFD\uFFFD',
      message: 'metadata.name: Invalid value: "web\uFFFD"',
      userAgent: 'agent\uFFFD',
    });
    expect(stored.at).toBe(dirty.at);
    expect(dirty.name).toBe('web\u0000\udfff');
  });

  it('bounds JSON texts at 64 KiB, messages and errors at 4 KiB, and other text at 1 KiB', () => {
    const huge = 'x'.repeat(200_000);
    const stored = storableRow({ ...change, name: huge, specBefore: huge, specAfter: huge, message: huge });
    expect(bytes(stored.name)).toBe(TEXT_MAX_BYTES);
    expect(bytes(stored.specBefore!)).toBe(JSON_TEXT_MAX_BYTES);
    expect(bytes(stored.specAfter!)).toBe(JSON_TEXT_MAX_BYTES);
    expect(bytes(stored.message!)).toBe(MESSAGE_MAX_BYTES);

    const reconcile: ReconcileRecordRow = {
      startedAt: new Date(0),
      finishedAt: new Date(1),
      durationMs: 1,
      namespace: 'default',
      name: 'web',
      uid: null,
      generation: null,
      resourceVersion: null,
      trigger: 'retry',
      desiredReplicas: null,
      activeReplicas: null,
      readyReplicas: null,
      actions: huge,
      result: 'error',
      error: huge,
      attempt: 2,
      instanceId: 'i\u0000',
    };
    const record = storableRow(reconcile);
    expect(bytes(record.actions)).toBe(JSON_TEXT_MAX_BYTES);
    expect(bytes(record.error!)).toBe(MESSAGE_MAX_BYTES);
    expect(record.instanceId).toBe('i\uFFFD');
    expect(record.attempt).toBe(2);
  });

  it('cleans a no-op count’s namespace and name, keeping its count and time', () => {
    const lastAt = new Date(5);
    expect(storableRow({ namespace: 'a\u0000', name: '\ud800', count: 3, lastAt })).toEqual({
      namespace: 'a\uFFFD',
      name: '\uFFFD',
      count: 3,
      lastAt,
    });
  });

  it('keeps namespace and name of any length within what one PostgreSQL index entry holds (2704 bytes)', () => {
    const stored = storableRow({ ...change, namespace: 'n'.repeat(5_000), name: '😀'.repeat(5_000) });
    expect(bytes(stored.namespace) + bytes(stored.name) + 8).toBeLessThan(2_704);
  });
});
