/**
 * Rows as kubectl prints a table: each column as wide as its widest cell, three spaces apart, the last column not
 * padded; one line per row, headers first. Pure.
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]! + 3)))
      .join('');
  return [headers, ...rows].map(line).join('\n');
}
