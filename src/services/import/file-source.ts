import { closeSync, createReadStream, openSync, readSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { Readable } from 'node:stream'
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
  return {
    name: path,
    path,
    read: () => {
      const input = createReadStream(path, { highWaterMark: 1 << 16 })
      return isCsv(firstLine(path), path) ? readCsv(input) : readNdjson(input)
    },
  }
}

/** The name standard input goes by in error lines (`stdin:LINE: message`) and in the sync's source files. */
export const STDIN_NAME = 'stdin'

/**
 * A stream (standard input, for `import -`) as a record source. It can be read once: the first
 * non-blank line is looked at to choose the format as for a file without a known extension, then
 * put back in front of the rest, which is streamed on (memory does not grow with the input).
 */
export function streamSource (input: Readable, name = STDIN_NAME): RecordSource {
  let used = false
  return {
    name,
    read: () => {
      if (used) throw new Error(`${name} can be read only once`)
      used = true
      return readStream(input, name)
    },
  }
}

async function * readStream (input: Readable, name: string): AsyncIterable<RawRecord> {
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>
  const head: Buffer[] = []
  let head64k = 0
  let line: string | undefined
  // Enough of the stream to hold its first non-blank line (or all of it, if shorter).
  for (;;) {
    const next = await chunks.next()
    if (next.done === true) break
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value
    head.push(chunk)
    head64k += chunk.length
    line = firstNonBlank(Buffer.concat(head).toString('utf8'), true)
    if (line !== undefined || head64k >= 65_536) break
  }
  line ??= firstNonBlank(Buffer.concat(head).toString('utf8'), false)
  const rest = Readable.from((async function * () {
    yield * head
    for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) yield next.value
  })(), { objectMode: false })
  try {
    yield * (isCsv(line, name) ? readCsv(rest) : readNdjson(rest))
  } finally {
    rest.destroy()
    input.destroy()
  }
}

const NDJSON_NAME = /\.(?:ndjson|jsonl|json)$/i

/** Whether a source whose first non-blank line is `head` is CSV (docs/import.md "Which format a file is"). */
function isCsv (head: string | undefined, name: string): boolean {
  if (head === undefined || head.startsWith('{') || head.startsWith('[')) return false
  const columns = head.split(',').map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'))
  if (headerProblem(columns) === undefined) return true
  return !NDJSON_NAME.test(name)
}

/**
 * The first non-blank line of a text (after a BOM), trimmed; with `complete`, only a line whose
 * end was seen (the text may be the beginning of a stream).
 */
function firstNonBlank (text: string, complete: boolean): string | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  if (complete) lines.pop()
  return lines.map((line) => line.trim()).find((line) => line !== '')
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
  return firstNonBlank(head.subarray(0, length).toString('utf8'), false)
}

async function * readNdjson (input: Readable): AsyncIterable<RawRecord> {
  let line = 0
  try {
    for await (const batch of lineBatches(input)) {
      for (const text of batch) {
        line += 1
        // Blank lines (a trailing newline, spacing between blocks) carry no record.
        if (text.trim() === '') continue
        try {
          yield { line, value: JSON.parse(line === 1 ? text.replace(/^\uFEFF/, '') : text) as unknown }
        } catch (error) {
          yield { line, parseError: `invalid JSON: ${(error as Error).message}` }
        }
      }
    }
  } finally {
    input.destroy()
  }
}

/**
 * The lines of a stream, a chunk's worth at a time, split on LF, CRLF or a lone CR (as readline
 * does, so line numbers are the same). Not readline: its async iterator costs a promise per line
 * (docs/benchmarks.md "Import against the stores' bulk loaders").
 */
export async function * lineBatches (input: AsyncIterable<string | Buffer>): AsyncIterable<string[]> {
  const decoder = new StringDecoder('utf8')
  let rest = ''
  for await (const chunk of input) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk))
    const batch: string[] = []
    let start = 0
    for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
      const line = text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end)
      start = end + 1
      if (line.includes('\r')) batch.push(...line.split('\r'))
      else batch.push(line)
    }
    rest = text.slice(start)
    if (batch.length > 0) yield batch
  }
  rest += decoder.end()
  if (rest !== '') yield rest.split(/\r\n?/)
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

async function * readCsv (input: Readable): AsyncIterable<RawRecord> {
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
