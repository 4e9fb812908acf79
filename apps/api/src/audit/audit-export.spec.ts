import { Writable } from 'node:stream';
import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, exportFilename, exportSerializer, sendExport } from './audit-export.js';

describe('CSV cells (RFC 4180)', () => {
  it('leave plain values as they are and null empty', () => {
    expect(csvCell('web')).toBe('web');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(-1)).toBe('-1'); // numbers are never formulas
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('2026-11-22T10:00:00.000Z')).toBe('2026-11-22T10:00:00.000Z');
  });

  it('quote text with commas, quotes or line breaks, doubling the quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line1\nline2')).toBe('"line1\nline2"');
    expect(csvCell('cr\r')).toBe('"cr\r"');
  });

  it('write objects and JSON columns as JSON text', () => {
    expect(csvCell([{ kind: 'create', pod: 'web-x' }])).toBe('"[{""kind"":""create"",""pod"":""web-x""}]"');
    expect(csvCell({ replicas: 3 })).toBe('"{""replicas"":3}"');
    expect(csvCell('just text', true)).toBe('"""just text"""');
    expect(csvCell(null, true)).toBe('');
  });

  it.each(['=1+1', '+1', '-2', '@SUM(A1)', '\t=cmd', '\r=cmd', '=HYPERLINK("http://x","y")'])(
    'keep a spreadsheet from running %j as a formula',
    (text) => {
      const cell = csvCell(text);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
      expect(unquoted).toBe(`'${text}`);
    },
  );

  it('end each record with CRLF', () => {
    expect(csvLine(['a', 1, null, 'b,c'])).toBe('a,1,,"b,c"\r\n');
  });
});

describe('exportSerializer', () => {
  const items = [
    { id: 2, name: 'web', actions: [{ kind: 'delete', pod: 'web-1' }], error: '=cmd' },
    { id: 1, name: 'api', actions: [], error: null },
  ];

  it('writes CSV with a header row and JSON columns as JSON text', () => {
    const csv = exportSerializer('csv', ['id', 'name', 'actions', 'error'], new Set(['actions']));
    expect(csv.header).toBe('id,name,actions,error\r\n');
    expect(csv.lines(items)).toBe(
      '2,web,"[{""kind"":""delete"",""pod"":""web-1""}]",\'=cmd\r\n' + '1,api,[],\r\n',
    );
  });

  it('writes NDJSON as one whole item per line', () => {
    const ndjson = exportSerializer('ndjson', ['id']);
    expect(ndjson.header).toBe('');
    const lines = ndjson.lines(items).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[0]!)).toEqual(items[0]);
  });
});

describe('exportFilename', () => {
  it('names the list, the UTC time and the format', () => {
    const now = new Date('2026-11-22T10:05:06.789Z');
    expect(exportFilename('reconciles', 'csv', now)).toBe('reconciles-20261122T100506Z.csv');
    expect(exportFilename('changes', 'ndjson', now)).toBe('changes-20261122T100506Z.ndjson');
  });
});

describe('sendExport', () => {
  /** An Express-like response over a Writable that takes one chunk and then never drains. */
  function stalledResponse() {
    const sink = new Writable({ highWaterMark: 1, write: () => {} });
    const response = Object.assign(sink, {
      status: () => response,
      set: () => response,
    }) as unknown as Response & Writable;
    return response;
  }

  async function* endless() {
    for (let i = 0; ; i++) yield [{ id: i, name: `row-${i}` }];
  }

  it('cuts a client that stops reading, and a reader running past its time bound', async () => {
    const stalled = stalledResponse();
    const serializer = exportSerializer('ndjson', ['id', 'name']);
    const cut = await sendExport(stalled, {
      kind: 'changes',
      format: 'ndjson',
      serializer,
      batches: endless(),
      limits: { stallMs: 30, maxMs: 60_000 },
    });
    expect(stalled.destroyed).toBe(true);
    expect(cut.rows).toBeLessThanOrEqual(1);

    const fast = Object.assign(new Writable({ write: (_chunk, _encoding, callback) => callback() }), {
      status: () => fast,
      set: () => fast,
    }) as unknown as Response & Writable;
    const overtime = await sendExport(fast, {
      kind: 'changes',
      format: 'ndjson',
      serializer,
      batches: endless(),
      limits: { stallMs: 1000, maxMs: 50 },
    });
    expect(overtime.error).toBeInstanceOf(Error);
    expect(fast.destroyed).toBe(true);
  });
});
