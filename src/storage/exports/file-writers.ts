import { createHash, randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { once } from 'node:events'
import { pipeline } from 'node:stream/promises'
import type { Writable } from 'node:stream'
import { createGzip } from 'node:zlib'
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api'
import type { ExportColumn, ExportCompression, ExportFormat, ExportRow } from '../../domain/exports.js'

/**
 * Writers of one export file (docs/exports.md "Files"): rows in, a finished file on local disk
 * out, with its size and SHA-256. CSV (RFC 4180, a header line, an empty cell for NULL) and NDJSON
 * (one object per line, NULL as null, revenue as an exact decimal number) stream through gzip
 * when asked; Parquet is written by DuckDB from rows appended to a table of the file's own, so
 * a file's memory is bounded by EXPORT_MAX_ROWS_PER_FILE (and DuckDB's memory limit, past which it
 * spills to disk), never by the export's size.
 */

export interface WrittenFile {
  path: string
  rows: number
  bytes: number
  sha256: string
}

export interface FileWriter {
  write: (rows: readonly ExportRow[]) => Promise<void>
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

/** Parquet through DuckDB: one in-memory instance per process, a connection per file. */
export interface ParquetEngine {
  open: (columns: readonly ExportColumn[], path: string, compression: ExportCompression) => Promise<FileWriter>
  close: () => Promise<void>
}

/** Texts appended as VARCHAR and cast when the file is written (dates, timestamps, exact decimals). */
function stagedAsText (column: ExportColumn): boolean {
  return column.type !== 'BIGINT'
}

function quoteIdentifier (name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

function quoteLiteral (text: string): string {
  return `'${text.replaceAll('\'', '\'\'')}'`
}

export function createParquetEngine (options: { memoryLimit: string, tempDirectory: string }): ParquetEngine {
  let instance: Promise<DuckDBInstance> | undefined
  const instanceOf = async (): Promise<DuckDBInstance> => await (instance ??= DuckDBInstance.create(':memory:', {
    memory_limit: options.memoryLimit,
    threads: '2',
    temp_directory: options.tempDirectory,
    // Exports read nothing but what they append: no extension is ever loaded or fetched.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  }))
  return {
    open: async (columns, path, compression) => {
      const connection: DuckDBConnection = await (await instanceOf()).connect()
      const table = `rows_${randomUUID().replaceAll('-', '')}`
      const definition = columns.map((column) => `${quoteIdentifier(column.name)} ${stagedAsText(column) ? 'VARCHAR' : 'BIGINT'}`).join(', ')
      await connection.run(`create table ${table} (${definition})`)
      let appender: DuckDBAppender | undefined = await connection.createAppender(table)
      let rows = 0
      const drop = async (): Promise<void> => {
        appender?.closeSync()
        appender = undefined
        await connection.run(`drop table if exists ${table}`).catch(() => {})
        connection.closeSync()
      }
      return {
        write: async (batch) => {
          const target = appender as DuckDBAppender
          for (const row of batch) {
            for (let index = 0; index < columns.length; index++) {
              const value = row[index] ?? null
              if (value === null) target.appendNull()
              else if (stagedAsText(columns[index] as ExportColumn)) target.appendVarchar(String(value))
              else target.appendBigInt(BigInt(value))
            }
            target.endRow()
          }
          rows += batch.length
        },
        finish: async () => {
          try {
            appender?.flushSync()
            appender?.closeSync()
            appender = undefined
            const select = columns.map((column) => {
              const name = quoteIdentifier(column.name)
              return column.type === 'BIGINT' || column.type === 'VARCHAR' ? name : `cast(${name} as ${column.type}) as ${name}`
            }).join(', ')
            await connection.run(`copy (select ${select} from ${table}) to ${quoteLiteral(path)} (format parquet, compression ${compression}, row_group_size 122880)`)
          } finally {
            await drop()
          }
          return { path, rows, ...await digestFile(path) }
        },
        abort: async () => {
          await drop()
          await rm(path, { force: true })
        },
      }
    },
    close: async () => {
      if (instance === undefined) return
      const opened = await instance
      instance = undefined
      opened.closeSync()
    },
  }
}
