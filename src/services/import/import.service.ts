import { formatUtcSeconds } from '../../domain/dates.js'
import type { Sync } from '../../domain/syncs.js'
import type { Store } from '../../storage/db.js'
import { listAccountKeys, listBrandIds } from '../../storage/repositories/import-lookup.repository.js'
import { openImportWriter, type ImportWriter } from '../../storage/repositories/import-writer.js'
import { renderBrandDayEntry } from '../analytics/entries.js'
import type { RecordKind } from './records.js'
import { References, scanSources, type Place, type ScanResult, type ScanSink } from './scan.js'
import { startRenderThread } from './render-thread.js'
import { filesOf, scanInWorker } from './scan-in-worker.js'
import type { RecordSource } from './source.js'

/**
 * The import (docs/import.md), in one streaming pass inside one transaction: every record is
 * validated and, while the import is still clean, written at once; references to accounts and
 * brands are checked against what the store held at the start and what the import declares
 * anywhere (a record may come before the account it names). Any error — in a field, in a
 * reference — is reported with its line, the reading goes on so that every error is listed, and
 * the transaction is rolled back: an invalid import writes nothing. Memory holds the store's
 * brand ids and account keys, the keys the import declares, and the line numbers of records whose
 * account or brand has not been seen yet (none for a file that declares before it uses).
 * The reading side is scan.ts; for files it runs in a thread of its own (scan-in-worker.ts), so
 * that parsing and validating the next records overlaps writing the last ones.
 */

export interface ImportSummary {
  /** Valid records read, by kind (a record repeated with the same key counts each time). */
  counts: Record<RecordKind, number>
  records: number
  /** Wall time of the whole import, 3 decimals. */
  seconds: number
  /** records / seconds, rounded. */
  rowsPerSecond: number
  dryRun: boolean
  /** The sync the import committed as (docs/import.md "Syncs"); null for a dry run. */
  sync: Sync | null
}

export interface ImportOptions {
  /** Validate only: nothing is written. */
  dryRun?: boolean
  /** Called once per error with `NAME:LINE: message`, as soon as it is found. */
  onError?: (message: string) => void
  /** Called every few thousand records and once at the end with the records read so far. */
  onProgress?: (recordsDone: number) => void
}

/** Thrown when any error was found (each one already reported through onError); nothing was written. */
export class ImportRejectedError extends Error {
  readonly errorCount: number
  constructor (errorCount: number) {
    super(`import rejected: ${errorCount} error${errorCount === 1 ? '' : 's'}; nothing was written`)
    this.name = 'ImportRejectedError'
    this.errorCount = errorCount
  }
}

export async function importSources (store: Store, sources: RecordSource[], options: ImportOptions = {}): Promise<ImportSummary> {
  const started = performance.now()
  const progress = options.onProgress ?? (() => {})
  let errorCount = 0
  const report = (place: Place, message: string): void => {
    errorCount += 1
    options.onError?.(`${sources[place.source]?.name ?? '?'}:${place.line}: ${message}`)
  }

  const brands = await listBrandIds(store.db)
  const accounts = await listAccountKeys(store.db)
  const writer: ImportWriter | undefined = options.dryRun === true ? undefined : await openImportWriter(store, formatUtcSeconds(), renderBrandDayEntry)
  let sync: Sync | null = null
  let scanned: ScanResult
  try {
    const sink: ScanSink = {
      record: (record) => writer?.add(record),
      // A dry run drops them; a store that takes columns gets them as they came.
      dailyColumns: writer === undefined ? () => undefined : writer.addDailyColumns,
      error: report,
      read: progress,
    }
    // Files are read in a thread of their own, beside the writing; other sources here.
    const files = filesOf(sources)
    scanned = files === undefined
      ? await scanSources(sources, new References(brands, accounts), sink)
      : await scanInWorker({ sources: files, brands, accounts }, sink)
    if (errorCount > 0) throw new ImportRejectedError(errorCount)
    if (writer !== undefined) {
      // The entries of the brand-days summed again are rendered in a thread of their own
      // (render-thread.ts) when the reading had one: a machine with a core to spare.
      const rendering = files === undefined ? undefined : startRenderThread()
      try {
        sync = await writer.commit({ sourceFiles: sources.map((source) => source.name), read: scanned.counts }, rendering?.render)
      } finally {
        await rendering?.close()
      }
    }
  } catch (error) {
    await writer?.rollback()
    throw error
  }
  const { counts, records, read } = scanned
  progress(read)
  const seconds = (performance.now() - started) / 1000
  return {
    counts,
    records,
    seconds: Math.round(seconds * 1000) / 1000,
    rowsPerSecond: seconds > 0 ? Math.round(records / seconds) : records,
    dryRun: options.dryRun === true,
    sync,
  }
}

/** The import bound to a store (src/services/index.ts). */
export interface ImportService {
  run: (sources: RecordSource[], options?: ImportOptions) => Promise<ImportSummary>
}

export function createImportService (deps: { store: Store }): ImportService {
  return { run: async (sources, options) => await importSources(deps.store, sources, options) }
}
