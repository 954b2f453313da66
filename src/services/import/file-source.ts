import { closeSync, createReadStream, openSync, readSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { parse, type CsvError } from 'csv-parse'
import type { RawRecord, RecordSource } from './source.js'
import { FIELDS_OF } from './validate-record.js'

/**
 * Import files as record sources, streamed line by line (constant memory at any size). The
 * content decides the format where it can: a first record starting with `{` or `[` is NDJSON, and
 * a first line that is a valid CSV header of daily fields is CSV, whatever the file is called.
 * Otherwise (a damaged first line) the name decides: `.ndjson`, `.jsonl` or `.json` is NDJSON, so
 * that line is reported as the bad JSON it is; anything else is CSV, whose header error says what
 * the formats look like (docs/import.md "Which format a file is").
 */
export function fileSource (path: string): RecordSource {
  return { name: path, read: () => (isCsv(path) ? readCsv(path) : readNdjson(path)) }
}

const NDJSON_NAME = /\.(?:ndjson|jsonl|json)$/i

function isCsv (path: string): boolean {
  const head = firstLine(path)
  if (head === undefined || head.startsWith('{') || head.startsWith('[')) return false
  const columns = head.split(',').map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'))
  if (headerProblem(columns) === undefined) return true
  return !NDJSON_NAME.test(path)
}

/** The file's first non-blank line (after a BOM), from its first 64 KB; undefined for a blank file. */
function firstLine (path: string): string | undefined {
  const head = Buffer.alloc(65_536)
  const fd = openSync(path, 'r')
  let length: number
  try {
    length = readSync(fd, head, 0, head.length, 0)
  } finally {
    closeSync(fd)
  }
  return head.subarray(0, length).toString('utf8').replace(/^\uFEFF/, '').split(/\r?\n/).map((line) => line.trim()).find((line) => line !== '')
}

async function * readNdjson (path: string): AsyncIterable<RawRecord> {
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })
  const lines = createInterface({ input, crlfDelay: Infinity })
  let line = 0
  try {
    for await (const rawText of lines) {
      line += 1
      const text = line === 1 ? rawText.replace(/^\uFEFF/, '') : rawText
      // Blank lines (a trailing newline, spacing between blocks) carry no record.
      if (text.trim() === '') continue
      try {
        yield { line, value: JSON.parse(text) as unknown }
      } catch (error) {
        yield { line, parseError: `invalid JSON: ${(error as Error).message}` }
      }
    }
  } finally {
    input.destroy()
  }
}

const REQUIRED_CSV_COLUMNS = ['platform', 'account_id', 'date']
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/** What is wrong with a CSV header, if anything (one message; the rows cannot be read without it). */
function headerProblem (columns: string[]): string | undefined {
  const unknown = columns.filter((column) => !FIELDS_OF.daily.has(column))
  if (unknown.length > 0) {
    return `unknown column(s) ${unknown.map((c) => `"${c}"`).join(', ')} in the CSV header ` +
      '(a file is NDJSON, one JSON object per line, or CSV of daily rows whose header names fields such as platform,account_id,date,views)'
  }
  const repeated = columns.filter((column, index) => columns.indexOf(column) !== index)
  if (repeated.length > 0) return `column(s) ${repeated.map((c) => `"${c}"`).join(', ')} appear more than once in the CSV header`
  const missing = REQUIRED_CSV_COLUMNS.filter((column) => !columns.includes(column))
  if (missing.length > 0) return `the CSV header lacks the required column(s) ${missing.join(', ')}`
  return undefined
}

/** A CSV cell as the validator expects it: numbers as numbers, other text as is. */
function cellValue (cell: string): unknown {
  return NUMBER.test(cell) ? Number(cell) : cell
}

function countNewlines (text: string): number {
  let count = 0
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1
  return count
}

/** Newlines before the record's first character: empty lines the parser skipped. */
function leadingNewlines (raw: string): number {
  const match = /^[\r\n]*/.exec(raw)
  return match === null ? 0 : countNewlines(match[0])
}

async function * readCsv (path: string): AsyncIterable<RawRecord> {
  const input = createReadStream(path)
  const parser = parse({ raw: true, bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, skip_records_with_error: true })
  input.on('error', (error) => parser.destroy(error))
  input.pipe(parser)
  // A quoting error leaves the parser unsure where records start, so it ends the file; records
  // before it are still checked. csv-parse reports it (as a "skip") before we read those records.
  let fatal: { line: number, message: string, unclosedQuote: boolean } | undefined
  parser.on('skip', (error: CsvError & { lines?: number }) => {
    fatal ??= { line: error.lines ?? 1, message: `invalid CSV: ${error.message}`, unclosedQuote: error.code === 'CSV_QUOTE_NOT_CLOSED' }
  })
  let nextLine = 1
  let header: string[] | undefined
  try {
    for await (const { record, raw } of parser as AsyncIterable<{ record: string[], raw: string }>) {
      const line = nextLine + leadingNewlines(raw)
      nextLine += countNewlines(raw)
      if (fatal !== undefined && line >= fatal.line) break
      if (header === undefined) {
        header = record
        const problem = headerProblem(header)
        if (problem !== undefined) {
          yield { line, parseError: problem }
          return
        }
        continue
      }
      if (record.length !== header.length) {
        yield { line, parseError: `expected ${header.length} cells as in the header, got ${record.length}` }
        continue
      }
      const value = rowValue(header, record)
      yield value.kind === 'daily'
        ? { line, value }
        : { line, parseError: `a CSV file holds daily rows only (got kind ${JSON.stringify(value.kind)})` }
    }
    // A quote never closed runs to the end of the file, where csv-parse notices it: name the line
    // the unfinished record starts on (the first one not read), where the stray quote is.
    if (fatal?.unclosedQuote === true && nextLine <= fatal.line) yield { line: nextLine, parseError: 'invalid CSV: a quoted cell opened on this line is never closed' }
    else if (fatal !== undefined) yield { line: fatal.line, parseError: fatal.message }
  } finally {
    input.destroy()
    parser.destroy()
  }
}

/** One CSV row as a daily record; an empty cell is "not reported", so it is left out. */
function rowValue (header: string[], record: string[]): Record<string, unknown> {
  const value: Record<string, unknown> = { kind: 'daily' }
  for (let index = 0; index < header.length; index += 1) {
    const cell = record[index] ?? ''
    const column = header[index] as string
    if (cell === '') continue
    value[column] = column === 'kind' ? cell : cellValue(cell)
  }
  return value
}
