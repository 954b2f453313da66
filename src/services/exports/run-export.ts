import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { CompiledQuery } from 'kysely'
import { formatUtcSeconds } from '../../domain/dates.js'
import { datasetColumns, fileExtension, microsToDecimal, type ExportColumn, type ExportFile, type ExportRequest, type ExportRow } from '../../domain/exports.js'
import { sortPlatforms, type PlatformCode } from '../../domain/platforms.js'
import type { AnalyticsUpdatedData } from '../../domain/changes.js'
import { bucketsOf } from '../../domain/reports.js'
import { compilingDb } from '../../storage/exports/compiling-db.js'
import {
  accountCountQuery, accountRowsQuery, changedDailyRowsQuery, dailyCopyStatement, dailyCsvLinesQuery, changedEventsQuery, dailyCountQuery, dailyRowsQuery, postCountQuery, postRowsQuery,
  type ChangedAccount,
} from '../../storage/exports/dataset-queries.js'
import { openFileWriter, type FileWriter, type ParquetEngine } from '../../storage/exports/file-writers.js'
import { openSnapshotAt, SnapshotUnsupportedError, type ExportSnapshot, type ExportSource } from '../../storage/exports/snapshot.js'

/**
 * Runs one export job (docs/exports.md), in the job's export process (export-process.ts): opens
 * one snapshot on a connection of its own, reads the dataset's rows in batches, writes them into
 * files cut by month (daily, posts) or by EXPORT_MAX_ROWS_PER_FILE, and hands each finished file
 * to `onFile`. A file is finished (Parquet: DuckDB's COPY, on DuckDB's thread) while the next
 * one's rows are read and staged; one file at a time is finishing, so memory holds one batch, one
 * file being written and one being finished, whatever the export's size.
 */

/** A failure the job ends with, shown to the partner as the job's `error`. */
export class ExportFailure extends Error {
  constructor (readonly code: string, message: string) {
    super(message)
  }
}

export interface RunContext {
  source: ExportSource
  /** Local directory where files are written before `onFile` takes them. */
  stagingDir: string
  parquet: ParquetEngine
  maxRowsPerFile: number
  maxRows: number
  signal: AbortSignal
  /** Called once the snapshot is open, before any row is read. */
  onSnapshot: (snapshot: { syncId: number, eventId: number, rowsEstimate: number }) => Promise<void>
  /** Awaited before each chunk of rows is read: the export gives way while the API is busy. */
  paced?: () => Promise<void>
  onRows: (rowsWritten: number) => void
  /** A finished file on local disk under stagingDir, in order; the job ends once every call has settled. */
  onFile: (file: ExportFile, path: string) => Promise<void>
}

export interface RunResult {
  files: ExportFile[]
  rows: number
}

const BATCH_ROWS = 2000
/** analytics.updated events an incremental export reads at most (more: export in full again). */
export const MAX_CHANGED_EVENTS = 20_000

export async function runExport (ctx: RunContext, job: { exportId: string, userId: string, request: ExportRequest }): Promise<RunResult> {
  const { request } = job
  const columns = datasetColumns(request.dataset)
  await mkdir(ctx.stagingDir, { recursive: true })
  let snapshot: ExportSnapshot
  try {
    snapshot = await openSnapshotAt(ctx.source)
  } catch (error) {
    if (error instanceof SnapshotUnsupportedError) throw new ExportFailure('STORE_UNSUPPORTED', error.message)
    throw error
  }
  const files: ExportFile[] = []
  let writer: { writer: FileWriter, name: string, rows: number } | undefined
  // The file being finished while the next is written (at most one).
  let finishing: Promise<void> = Promise.resolve()
  let total = 0
  try {
    const db = compilingDb(ctx.source.dialect)
    const incremental = request.changedAfterEvent !== undefined
    // SQLite's daily lines are read month by month (stagingCsvOf): the count gives the months.
    const countQuery = request.dataset === 'daily' ? dailyCountQuery(db, job.userId, request, snapshot.lines !== undefined) : request.dataset === 'posts' ? postCountQuery(db, job.userId, request) : accountCountQuery(db, job.userId, request)
    const [counted] = incremental ? [undefined] : await snapshot.all<{ rows: number | string, first_date?: string | null, last_date?: string | null }>(countQuery)
    await ctx.onSnapshot({ syncId: snapshot.syncId, eventId: snapshot.lastEventId, rowsEstimate: Number(counted?.rows ?? 0) })

    const source = incremental
      ? changedDailyBatches(snapshot, db, job.userId, request)
      : snapshot.batches(request.dataset === 'daily' ? dailyRowsQuery(db, job.userId, request) : request.dataset === 'posts' ? postRowsQuery(db, job.userId, request) : accountRowsQuery(db, job.userId, request), BATCH_ROWS)
    const convert = converterOf(columns)
    const partitionOf = incremental ? () => 'changes' : partitionerOf(request.dataset)
    const parts = new Map<string, number>()
    const extension = fileExtension(request.format, request.compression)

    const close = async (): Promise<void> => {
      if (writer === undefined) return
      const closing = writer
      writer = undefined
      await finishing
      finishing = (async () => {
        const done = await closing.writer.finish()
        const file = { name: closing.name, rows: done.rows, bytes: done.bytes, sha256: done.sha256 }
        await ctx.onFile(file, done.path)
        files.push(file)
      })()
      // Awaited by the next close or at the end; a failure meanwhile is reported there.
      finishing.catch(() => {})
    }
    const open = async (partition: string): Promise<void> => {
      const part = (parts.get(partition) ?? 0) + 1
      parts.set(partition, part)
      const base = partition === '' ? request.dataset : `${request.dataset}-${partition}`
      const name = `${base}${part === 1 ? '' : `-${part}`}.${extension}`
      const path = join(ctx.stagingDir, `${job.exportId}-${name}`)
      writer = { writer: await openFileWriter({ format: request.format, compression: request.compression, columns, path, parquet: ctx.parquet }), name, rows: 0 }
    }
    let current: string | undefined
    const staged = !incremental && request.dataset === 'daily' && request.format === 'parquet'
      ? stagingCsvOf(snapshot, db, job.userId, request, { first: counted?.first_date ?? null, last: counted?.last_date ?? null })
      : undefined
    const copying = staged !== undefined
    if (copying) {
      // daily as Parquet: the store's own CSV of the rows (PostgreSQL's COPY, SQLite's lines) is the
      // staging file's text, cut into files by the month of each line's date (its first 7 bytes),
      // unconverted.
      let leftover: Buffer | undefined
      for await (const chunk of staged) {
        ctx.signal.throwIfAborted()
        await ctx.paced?.()
        const data = leftover === undefined ? chunk : Buffer.concat([leftover, chunk])
        const end = data.lastIndexOf(LF) + 1
        leftover = end < data.length ? data.subarray(end) : undefined
        let start = 0
        while (start < end) {
          const partition = data.toString('latin1', start, start + 7)
          if (writer === undefined || partition !== current || writer.rows >= ctx.maxRowsPerFile) {
            await close()
            await open(partition)
            current = partition
          }
          const open_ = writer as unknown as { writer: FileWriter, rows: number }
          const room = ctx.maxRowsPerFile - open_.rows
          let stop = start
          let lines = 0
          while (stop < end && lines < room && sameMonth(data, start, stop)) {
            stop = data.indexOf(LF, stop) + 1
            lines++
          }
          await (open_.writer.writeStaged as NonNullable<FileWriter['writeStaged']>)(data.subarray(start, stop), lines)
          open_.rows += lines
          total += lines
          start = stop
          if (total > ctx.maxRows) throw new ExportFailure('TOO_LARGE', `The export holds more than ${ctx.maxRows} rows (EXPORT_MAX_ROWS): narrow it by brand_id, platform or period`)
        }
        ctx.onRows(total)
      }
      if (leftover !== undefined) throw new Error('the store\'s CSV ended within a line')
    }
    // Every other export: rows read in batches, converted, written.
    for await (const raw of copying ? [] : source) {
      ctx.signal.throwIfAborted()
      await ctx.paced?.()
      let start = 0
      const rows = raw.map(convert)
      while (start < rows.length) {
        const partition = partitionOf(rows[start] as ExportRow)
        if (writer === undefined || partition !== current || writer.rows >= ctx.maxRowsPerFile) {
          await close()
          await open(partition)
          current = partition
        }
        const open_ = writer as unknown as { writer: FileWriter, rows: number }
        // The run of rows that stays in this file: same partition, within the file's size.
        let end = start
        const room = ctx.maxRowsPerFile - open_.rows
        while (end < rows.length && end - start < room && partitionOf(rows[end] as ExportRow) === partition) end++
        await open_.writer.write(rows.slice(start, end))
        open_.rows += end - start
        total += end - start
        start = end
        if (total > ctx.maxRows) throw new ExportFailure('TOO_LARGE', `The export holds more than ${ctx.maxRows} rows (EXPORT_MAX_ROWS): narrow it by brand_id, platform or period`)
      }
      ctx.onRows(total)
    }
    ctx.signal.throwIfAborted()
    await close()
    await finishing
    return { files, rows: total }
  } catch (error) {
    await (writer as { writer: FileWriter } | undefined)?.writer.abort().catch(() => {})
    await finishing.catch(() => {})
    throw error
  } finally {
    await snapshot.close()
  }
}

const LF = 10

/**
 * A daily Parquet export's staging CSV as the store writes it, lines starting with the date:
 * PostgreSQL's COPY of the rows; SQLite's statement of lines (dataset-queries.ts), one statement
 * per month of the scope's dates (`dates`, from the count). SQLite sorts a statement's rows before
 * giving the first: a month at a time, the first file's rows come at once (two years of 1,000
 * brands: after 0.4 s instead of 9 s of sorting) and DuckDB converts each month while the next is
 * sorted and read.
 */
function stagingCsvOf (snapshot: ExportSnapshot, db: ReturnType<typeof compilingDb>, userId: string, request: ExportRequest,
  dates: { first: string | null, last: string | null }): AsyncIterable<Buffer> | undefined {
  if (snapshot.copy !== undefined && snapshot.literal !== undefined) return snapshot.copy(dailyCopyStatement(db, userId, request, snapshot.literal))
  const lines = snapshot.lines
  if (lines === undefined) return undefined
  return (async function * () {
    for (const month of monthsOf(dates.first, dates.last)) yield * lines(dailyCsvLinesQuery(db, userId, { ...request, ...month }), BATCH_ROWS)
  })()
}

/** The months from `first` to `last` (dates), each as the days of it within them (the report's month buckets); none when either is null. */
function monthsOf (first: string | null, last: string | null): Array<{ since: string, until: string }> {
  if (first === null || last === null) return []
  return bucketsOf('month', { since: first, until: last }).map((bucket) => ({ since: bucket.from, until: bucket.to }))
}

/** Whether the lines at `a` and `b` start with the same 7 bytes (YYYY-MM). */
function sameMonth (data: Buffer, a: number, b: number): boolean {
  for (let index = 0; index < 7; index++) if (data[a + index] !== data[b + index]) return false
  return true
}

/** daily/posts: one file per month (of the date, of the publication time); accounts: one. */
function partitionerOf (dataset: ExportRequest['dataset']): (row: ExportRow) => string {
  if (dataset === 'accounts') return () => ''
  // date is the daily row's first value; created_time the post's fifth.
  const index = dataset === 'daily' ? 0 : 4
  return (row) => String(row[index]).slice(0, 7)
}

function converterOf (columns: readonly ExportColumn[]): (raw: unknown[]) => ExportRow {
  const kinds = columns.map((column) => column.type)
  return (raw) => kinds.map((kind, index) => {
    const value = raw[index]
    if (value === null || value === undefined) return null
    if (kind === 'BIGINT') return Number(value)
    if (kind === 'DECIMAL(18,6)') return microsToDecimal(Number(value))
    if (kind === 'TIMESTAMP') return formatUtcSeconds(value as string)
    return String(value)
  })
}

/**
 * An incremental export's rows: the days that analytics.updated events after the cursor (through
 * the snapshot's last event) name, account by account, each account's days merged.
 */
async function * changedDailyBatches (snapshot: ExportSnapshot, db: ReturnType<typeof compilingDb>, userId: string, request: ExportRequest): AsyncGenerator<unknown[][]> {
  const events = await snapshot.all<{ event_id: number, data: string }>(
    changedEventsQuery(db, userId, request, request.changedAfterEvent ?? 0, snapshot.lastEventId, MAX_CHANGED_EVENTS + 1))
  if (events.length > MAX_CHANGED_EVENTS) {
    throw new ExportFailure('TOO_MANY_CHANGES', `More than ${MAX_CHANGED_EVENTS} analytics.updated events since the cursor: export the dataset in full instead`)
  }
  const accounts = changedAccounts(events.map((event) => JSON.parse(event.data) as AnalyticsUpdatedData), request)
  for (const account of accounts) {
    const query: CompiledQuery = changedDailyRowsQuery(db, userId, request, account)
    yield * snapshot.batches(query, BATCH_ROWS)
  }
}

/** Each account's changed days, merged into runs, within the request's platforms, accounts and period. */
export function changedAccounts (events: readonly AnalyticsUpdatedData[], request: ExportRequest): ChangedAccount[] {
  const byAccount = new Map<string, ChangedAccount>()
  for (const event of events) {
    for (const account of event.accounts) {
      if (request.platforms !== undefined && !request.platforms.includes(account.platform)) continue
      if (request.accountIds !== undefined && !request.accountIds.includes(account.account_id)) continue
      const key = `${account.platform}:${account.account_id}`
      const entry = byAccount.get(key) ?? { platform: account.platform, accountId: account.account_id, ranges: [] }
      byAccount.set(key, entry)
      for (const range of account.dates) {
        const since = request.since !== undefined && range.since < request.since ? request.since : range.since
        const until = request.until !== undefined && range.until > request.until ? request.until : range.until
        if (since <= until) entry.ranges.push({ since, until })
      }
    }
  }
  const order = new Map(sortPlatforms(new Set([...byAccount.values()].map((account) => account.platform))).map((platform, index) => [platform, index]))
  return [...byAccount.values()]
    .filter((account) => account.ranges.length > 0)
    .map((account) => ({ ...account, ranges: mergeRanges(account.ranges) }))
    .sort((a, b) => (order.get(a.platform as PlatformCode) ?? 0) - (order.get(b.platform as PlatformCode) ?? 0) || a.accountId - b.accountId)
}

function mergeRanges (ranges: Array<{ since: string, until: string }>): Array<{ since: string, until: string }> {
  const sorted = [...ranges].sort((a, b) => a.since.localeCompare(b.since))
  const merged: Array<{ since: string, until: string }> = []
  for (const range of sorted) {
    const last = merged.at(-1)
    if (last !== undefined && range.since <= last.until) {
      if (range.until > last.until) last.until = range.until
    } else {
      merged.push({ ...range })
    }
  }
  return merged
}
