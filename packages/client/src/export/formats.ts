import type { Writable } from 'node:stream'

/** The three export formats. Rows are flat objects (analytics entries, post records). */
export const FORMATS = ['csv', 'ndjson', 'json'] as const
export type Format = (typeof FORMATS)[number]

export type Row = Record<string, unknown>

/** A sink rows are written to one by one; `end` finishes the document. */
export interface RowWriter {
  write: (row: Row) => Promise<void>
  end: () => Promise<void>
}

async function put (out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve))
}

/** RFC 4180: quote a cell holding a comma, quote, CR or LF, doubling inner quotes; null is an empty cell. */
export function csvCell (value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export function createRowWriter (format: Format, out: Writable): RowWriter {
  if (format === 'ndjson') {
    return { write: async (row) => { await put(out, JSON.stringify(row) + '\n') }, end: async () => {} }
  }
  if (format === 'json') {
    let first = true
    return {
      write: async (row) => { await put(out, (first ? '[\n' : ',\n') + JSON.stringify(row)); first = false },
      end: async () => { await put(out, first ? '[]\n' : '\n]\n') },
    }
  }
  // CSV needs its header first, and entries of different platforms carry different fields: the
  // rows are held until the end so the header is the union of every row's fields, in first-seen order.
  const rows: Row[] = []
  return {
    write: async (row) => { rows.push(row) },
    end: async () => {
      const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))]
      if (columns.length === 0) return
      await put(out, columns.map(csvCell).join(',') + '\r\n')
      for (const row of rows) await put(out, columns.map((column) => csvCell(row[column])).join(',') + '\r\n')
    },
  }
}
