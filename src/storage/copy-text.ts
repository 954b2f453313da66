import { once } from 'node:events'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'

/**
 * PostgreSQL's `COPY … FROM STDIN` in its text format: the fastest way to hand rows to the server
 * (no statement to parse per row, no JSON to take apart), used by the import's staged batches and
 * the read model's rendered brand-days.
 */

/** Characters COPY's text format escapes. */
const COPY_SPECIAL = /[\\\t\n\r]/

/** A value in COPY's text format: `\N` is null; backslash, tab and line breaks are escaped. */
export function copyValue (value: unknown): string {
  if (value === null || value === undefined) return '\\N'
  if (typeof value === 'number') return String(value)
  const text = String(value)
  if (!COPY_SPECIAL.test(text)) return text
  return text.replace(/[\\\t\n\r]/g, (char) => (char === '\\' ? '\\\\' : char === '\t' ? '\\t' : char === '\n' ? '\\n' : '\\r'))
}

/** Streams `text` (lines of tab-separated copyValue cells) into `table (columns)` and waits until the server has it. */
export async function copyText (client: pg.PoolClient, table: string, columns: string, text: string): Promise<void> {
  const copy = client.query(copyFrom(`copy ${table} (${columns}) from stdin`))
  const done = once(copy, 'finish')
  copy.end(text)
  await done
}
