import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { once } from 'node:events'
import { pipeline } from 'node:stream/promises'
import type { Writable } from 'node:stream'
import { createGzip } from 'node:zlib'
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import type { ExportColumn, ExportCompression, ExportFormat, ExportRow } from '../../domain/exports.js'

/**
 * Writers of one export file (docs/exports.md "Files"): rows in, a finished file on local disk
 * out, with its size and SHA-256. CSV (RFC 4180, a header line, an empty cell for NULL) and NDJSON
 * (one object per line, NULL as null, revenue as an exact decimal number) stream through gzip
 * when asked; Parquet is written by DuckDB from the file's rows staged as CSV on local disk
 * (createParquetEngine), so memory is bounded by DuckDB's memory limit (past which it spills to
 * disk), never by the file's or the export's size.
 */

export interface WrittenFile {
  path: string
  rows: number
  bytes: number
  sha256: string
}

export interface FileWriter {
  write: (rows: readonly ExportRow[]) => Promise<void>
  /**
   * Parquet only: `rows` lines of staging CSV as they are (the store's own CSV of the file's
   * columns: NULL an empty cell, a text quoted when needed, LF-terminated).
   */
  writeStaged?: (csv: Buffer, rows: number) => Promise<void>
  finish: () => Promise<WrittenFile>
  /** Drops what was written (the job stopped). */
  abort: () => Promise<void>
}

export interface WriterOptions {
  format: ExportFormat
  compression: ExportCompression
  columns: readonly ExportColumn[]
  path: string
  parquet: ParquetEngine
}

export async function openFileWriter (options: WriterOptions): Promise<FileWriter> {
  if (options.format === 'parquet') return await options.parquet.open(options.columns, options.path, options.compression)
  return openTextWriter(options)
}

/** Size and SHA-256 of a file, read as a stream. */
export async function digestFile (path: string): Promise<{ bytes: number, sha256: string }> {
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer)
    bytes += (chunk as Buffer).length
  }
  return { bytes, sha256: hash.digest('hex') }
}

function csvCell (value: string | number | null): string {
  if (value === null) return ''
  if (typeof value === 'number') return String(value)
  // An empty text is quoted so that it stays apart from NULL.
  return value === '' || /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

function ndjsonLine (columns: readonly ExportColumn[], row: ExportRow): string {
  const members = columns.map((column, index) => {
    const value = row[index] ?? null
    // Revenue is an exact decimal text: written as a JSON number, digit for digit.
    const text = value === null ? 'null' : column.type === 'DECIMAL(18,6)' || typeof value === 'number' ? String(value) : JSON.stringify(value)
    return `${JSON.stringify(column.name)}:${text}`
  })
  return `{${members.join(',')}}\n`
}

function openTextWriter (options: WriterOptions): FileWriter {
  const file = createWriteStream(options.path)
  const gzip = options.compression === 'gzip' ? createGzip() : undefined
  const sink: Writable = gzip ?? file
  const done = gzip === undefined ? once(file, 'finish') : pipeline(gzip, file)
  // A failure is reported by finish/abort, not as an unhandled rejection in between.
  done.catch(() => {})
  let rows = 0
  const put = async (text: string): Promise<void> => {
    if (!sink.write(text)) await once(sink, 'drain')
  }
  const header = options.format === 'csv' ? `${options.columns.map((column) => csvCell(column.name)).join(',')}\r\n` : ''
  let started = false
  return {
    write: async (batch) => {
      let text = started ? '' : header
      started = true
      for (const row of batch) {
        text += options.format === 'csv' ? `${row.map(csvCell).join(',')}\r\n` : ndjsonLine(options.columns, row)
      }
      rows += batch.length
      await put(text)
    },
    finish: async () => {
      if (!started) await put(header)
      sink.end()
      await done
      return { path: options.path, rows, ...await digestFile(options.path) }
    },
    abort: async () => {
      sink.destroy()
      file.destroy()
      await rm(options.path, { force: true })
    },
  }
}

/** Parquet through DuckDB: an in-memory instance for each file, closed when the file is written. */
export interface ParquetEngine {
  open: (columns: readonly ExportColumn[], path: string, compression: ExportCompression) => Promise<FileWriter>
}

/**
 * How DuckDB reads a staged column: dates and exact decimals as their own type (DuckDB's CSV reader
 * parses them as a cast from text would, for less work: the same Parquet bytes), timestamps as
 * VARCHAR cast when the file is written (their staged text ends in Z).
 */
function stagedType (column: ExportColumn): string {
  return column.type === 'TIMESTAMP' ? 'VARCHAR' : column.type
}

function quoteIdentifier (name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

function quoteLiteral (text: string): string {
  return `'${text.replaceAll('\'', '\'\'')}'`
}

/** A staging CSV cell: NULL is an empty cell, every text is quoted (so an empty text stays apart from NULL). */
function stagingCell (value: string | number | null): string {
  if (value === null) return ''
  if (typeof value === 'number') return String(value)
  return `"${value.includes('"') ? value.replaceAll('"', '""') : value}"`
}

/**
 * Rows per Parquet row group. DuckDB's writer holds a whole row group in memory before it writes
 * it, outside its memory_limit: at DuckDB's default of 122,880 rows of the daily dataset that was
 * ~230 MB over the process's base (the export process peaked at 362 MB at scale M), and a month
 * of scale S (30,000 rows, one group) far less, so the peak grew with the store. 30,720 rows keeps
 * the peak flat from S up (~100 MB over the base) for files ~4 % larger.
 */
const PARQUET_ROW_GROUP_ROWS = 30_720

export interface ParquetEngineOptions {
  /** DuckDB's memory_limit (EXPORT_PARQUET_MEMORY_MB); past it DuckDB spills to tempDirectory. */
  memoryLimit: string
  tempDirectory: string
  /** DuckDB's threads (1: the export process takes one core for DuckDB, one for reading). */
  threads?: number
}

/**
 * A file's rows are staged as CSV on local disk beside the file (`<file>.csv`, written as they
 * arrive), and `finish` has DuckDB read that CSV with the column types given (no sniffing) and
 * `COPY` it to Parquet: DuckDB parses and encodes on its own thread, so the caller may read and
 * stage the next file's rows meanwhile (run-export.ts overlaps them, one file at a time).
 */
export function createParquetEngine (options: ParquetEngineOptions): ParquetEngine {
  // One DuckDB instance per file, closed when the file is written: an instance kept for the next
  // file keeps its buffer pool filled up to memory_limit, so the export process grew file by file
  // (24 months of scale M: 210-220 MB against 148-152 MB with an instance per file, ~40 ms more
  // per file, mostly hidden behind the next file's reading).
  const createInstance = async (): Promise<DuckDBInstance> => await DuckDBInstance.create(':memory:', {
    memory_limit: options.memoryLimit,
    threads: String(options.threads ?? 1),
    temp_directory: options.tempDirectory,
    // Rows keep the order they were read in (sorted by the dataset's key).
    preserve_insertion_order: 'true',
    // Exports read nothing but their own staged files: no extension is ever loaded or fetched.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  })
  return {
    open: async (columns, path, compression) => {
      const staged = `${path}.csv`
      const text = openStagingFile(staged)
      let rows = 0
      return {
        write: async (batch) => {
          let chunk = ''
          for (const row of batch) {
            let line = stagingCell(row[0] ?? null)
            for (let index = 1; index < columns.length; index++) line += `,${stagingCell(row[index] ?? null)}`
            chunk += `${line}\n`
          }
          rows += batch.length
          await text.put(chunk)
        },
        writeStaged: async (csv, lines) => {
          rows += lines
          await text.put(csv)
        },
        finish: async () => {
          await text.end()
          const instance = await createInstance()
          const connection: DuckDBConnection = await instance.connect()
          try {
            const types = columns.map((column) => `${quoteLiteral(column.name)}: '${stagedType(column)}'`).join(', ')
            const select = columns.map((column) => {
              const name = quoteIdentifier(column.name)
              return stagedType(column) === column.type ? name : `cast(${name} as ${column.type}) as ${name}`
            }).join(', ')
            const read = `read_csv(${quoteLiteral(staged)}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', ` +
              `new_line = '\\n', allow_quoted_nulls = false, columns = {${types}})`
            await connection.run(`copy (select ${select} from ${read}) to ${quoteLiteral(path)} (format parquet, compression ${compression}, row_group_size ${PARQUET_ROW_GROUP_ROWS})`)
          } finally {
            connection.closeSync()
            instance.closeSync()
            await rm(staged, { force: true })
          }
          return { path, rows, ...await digestFile(path) }
        },
        abort: async () => {
          text.destroy()
          await rm(staged, { force: true })
          await rm(path, { force: true })
        },
      }
    },
  }
}

/** A local file written in chunks, waiting for the stream to drain. */
function openStagingFile (path: string): { put: (text: string | Buffer) => Promise<void>, end: () => Promise<void>, destroy: () => void } {
  const file = createWriteStream(path)
  const done = once(file, 'finish')
  done.catch(() => {})
  let failed: Error | undefined
  file.on('error', (error) => { failed = error })
  return {
    put: async (text) => {
      if (failed !== undefined) throw failed
      if (!file.write(text)) await once(file, 'drain')
    },
    end: async () => {
      if (failed !== undefined) throw failed
      file.end()
      await done
    },
    destroy: () => { file.destroy() },
  }
}
