/**
 * CSV exactly as `partner-analytics-export --format csv` writes it
 * (packages/client/src/export/formats.ts): RFC 4180, CRLF line ends, an empty cell for null, and
 * a header that is the union of every row's fields in first-seen order. Copied rather than
 * imported, because that module writes to Node streams; the end-to-end test compares the two
 * files byte for byte, so they cannot drift apart unnoticed.
 */

export type Row = Record<string, unknown>

export function csvCell (value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The whole file; empty when there are no rows (the export writes nothing either). */
export function toCsv (rows: readonly Row[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))]
  if (columns.length === 0) return ''
  const lines = [columns.map(csvCell).join(',')]
  for (const row of rows) lines.push(columns.map((column) => csvCell(row[column])).join(','))
  return lines.join('\r\n') + '\r\n'
}
