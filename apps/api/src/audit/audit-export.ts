import type { Response } from 'express';
import type { AuditListKind } from './audit-cursor.js';

/**
 * Exports of an audit list as NDJSON (one item per line) or CSV (RFC 4180, a header row, CRLF line ends),
 * streamed batch by batch so memory stays bounded whatever the size.
 */

export type ExportFormat = 'ndjson' | 'csv';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};

/** Cells a spreadsheet would run as a formula (=, +, -, @, and tab or CR before one; OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell: empty for null, numbers as they are, objects as JSON text, and text quoted per RFC 4180 when it
 * holds a comma, quote or line break. Text a spreadsheet would take for a formula gets a leading `'`.
 */
export function csvCell(value: unknown, json = false): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  let text = json || typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV record of `values`, ended by CRLF. */
export function csvLine(values: readonly unknown[], jsonAt: ReadonlySet<number> = new Set()): string {
  return `${values.map((value, index) => csvCell(value, jsonAt.has(index))).join(',')}\r\n`;
}

/** Serialises items of one list in one format: `header` once, then `lines` per batch. */
export interface ExportSerializer<Item> {
  header: string;
  lines(items: readonly Item[]): string;
}

/**
 * The serializer for `format`: CSV with `columns` in order (those in `jsonColumns` as JSON text), or NDJSON of
 * whole items.
 */
export function exportSerializer<Item extends object>(
  format: ExportFormat,
  columns: readonly (keyof Item & string)[],
  jsonColumns: ReadonlySet<string> = new Set(),
): ExportSerializer<Item> {
  if (format === 'ndjson')
    return { header: '', lines: (items) => items.map((item) => `${JSON.stringify(item)}\n`).join('') };
  const jsonAt = new Set(columns.flatMap((column, index) => (jsonColumns.has(column) ? [index] : [])));
  return {
    header: csvLine(columns),
    lines: (items) =>
      items
        .map((item) =>
          csvLine(
            columns.map((column) => item[column]),
            jsonAt,
          ),
        )
        .join(''),
  };
}

/** `reconciles-20261122T100000Z.csv`: the list, when it was exported (UTC), the format. */
export function exportFilename(kind: AuditListKind, format: ExportFormat, now = new Date()): string {
  const stamp = now.toISOString().replace(/\.\d+/, '').replaceAll(/[-:]/g, '');
  return `${kind}-${stamp}.${format}`;
}

export interface ExportResult {
  rows: number;
  /** Set when reading failed after the response had started; the connection was cut so the file is not taken as complete. */
  error?: unknown;
}

/** Bounds on one export: a client that reads nothing for `stallMs` is cut, and so is an export past `maxMs`. */
export const EXPORT_LIMITS = { stallMs: 60_000, maxMs: 10 * 60_000 };

/**
 * Streams every batch to `response` as an attachment. The first batch is read before anything is sent, so a
 * database that cannot be read still gets a proper error answer; a failure after that cuts the connection.
 * Waits for the client to drain between batches and stops reading when it goes away; a client that stops
 * reading for the stall bound, or an export that runs past its time bound, is cut too (never a complete-looking
 * file), so no reader holds a database cursor and a connection for ever.
 */
export async function sendExport<Item extends object>(
  response: Response,
  options: {
    kind: AuditListKind;
    format: ExportFormat;
    serializer: ExportSerializer<Item>;
    batches: AsyncIterable<Item[]>;
    now?: Date;
    limits?: typeof EXPORT_LIMITS;
  },
): Promise<ExportResult> {
  const { kind, format, serializer } = options;
  const limits = options.limits ?? EXPORT_LIMITS;
  const deadline = Date.now() + limits.maxMs;
  const iterator = options.batches[Symbol.asyncIterator]();
  let next = await iterator.next();
  response.status(200).set({
    'Content-Type': EXPORT_CONTENT_TYPES[format],
    'Content-Disposition': `attachment; filename="${exportFilename(kind, format, options.now)}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept',
  });
  let rows = 0;
  try {
    if (serializer.header) await write(response, serializer.header, limits.stallMs);
    while (!next.done) {
      if (Date.now() > deadline) throw new Error(`the export ran longer than ${limits.maxMs / 1000} s`);
      if (!(await write(response, serializer.lines(next.value), limits.stallMs))) {
        await iterator.return?.(undefined);
        return { rows };
      }
      rows += next.value.length;
      next = await iterator.next();
    }
  } catch (error) {
    response.destroy();
    await iterator.return?.(undefined)?.catch(() => undefined);
    return { rows, error };
  }
  response.end();
  return { rows };
}

/**
 * Writes a chunk, waiting for the client to drain when its buffer is full; false once it has gone away, or
 * after cutting it when it has not drained within `stallMs`.
 */
async function write(response: Response, chunk: string, stallMs: number): Promise<boolean> {
  if (response.destroyed || response.writableEnded) return false;
  if (chunk && !response.write(chunk))
    await new Promise<void>((resolve) => {
      const stall = setTimeout(() => response.destroy(), stallMs);
      const done = () => {
        clearTimeout(stall);
        response.off('drain', done);
        response.off('close', done);
        resolve();
      };
      response.on('drain', done);
      response.on('close', done);
    });
  return !response.destroyed;
}
