/** The three export formats. Rows are flat objects (analytics entries, post records). */
export const FORMATS = ['csv', 'ndjson', 'json'] as const
export type Format = (typeof FORMATS)[number]

export type Row = Record<string, unknown>

/** RFC 4180: quote a cell holding a comma, quote, CR or LF, doubling inner quotes; null is an empty cell. */
export function csvCell (value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The rows as text in the format, chunk by chunk: NDJSON and JSON stream, CSV waits for the last row. */
export async function * formatRows (format: Format, rows: AsyncIterable<Row> | Iterable<Row>): AsyncGenerator<string> {
  if (format === 'ndjson') {
    for await (const row of rows) yield JSON.stringify(row) + '\n'
    return
  }
  if (format === 'json') {
    let first = true
    for await (const row of rows) {
      yield (first ? '[\n' : ',\n') + JSON.stringify(row)
      first = false
    }
    yield first ? '[]\n' : '\n]\n'
    return
  }
  // CSV needs its header first, and entries of different platforms carry different fields: the
  // rows are held until the end so the header is the union of every row's fields, in first-seen order.
  const held: Row[] = []
  for await (const row of rows) held.push(row)
  const text = toCsv(held)
  if (text !== '') yield text
}

/**
 * The whole CSV file of these rows: RFC 4180, CRLF line ends, a header that is the union of every
 * row's fields in first-seen order; empty when there are no rows. Also what the dashboard's
 * download writes (web/), so the two files are the same byte for byte.
 */
export function toCsv (rows: readonly Row[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))]
  if (columns.length === 0) return ''
  let text = columns.map(csvCell).join(',') + '\r\n'
  for (const row of rows) text += columns.map((column) => csvCell(row[column])).join(',') + '\r\n'
  return text
}
