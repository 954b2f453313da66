import { DAILY_COUNT_METRICS } from '../../domain/metrics.js'
import type { RecordCounts, Sync } from '../../domain/syncs.js'
import type { BrandDayBatchRenderer } from '../read-model/group-rows.js'
import type { AccountsTable, BrandsTable, DailyMetricsTable, PostsTable } from '../database.js'

/** One record of an import, validated: exactly the row the store keeps (minus `updated_at`, stamped by the writer). */
export type ImportRow =
  | ({ kind: 'brand' } & Omit<BrandsTable, 'updated_at'>)
  | ({ kind: 'account' } & Omit<AccountsTable, 'updated_at'>)
  | ({ kind: 'daily' } & DailyMetricsTable)
  | ({ kind: 'post' } & Omit<PostsTable, 'updated_at'>)

/** A daily row's values after its key, in the order DailyColumns holds them. */
export const DAILY_VALUE_COLUMNS = ['revenue_micros', ...DAILY_COUNT_METRICS] as const

/**
 * Consecutive daily rows as columns of numbers (how the import's reading thread hands them over,
 * src/services/import/scan-batches.ts): row i is platform PLATFORM_CODES[platforms[i]], account
 * accounts[i], date dateTable[dates[i]], and DAILY_VALUE_COLUMNS in values[i × width …], NaN for null.
 */
export interface DailyColumns {
  kind: 'daily-columns'
  length: number
  platforms: Uint8Array
  accounts: Float64Array
  dates: Uint16Array
  /** The distinct dates of these rows. */
  dateTable: string[]
  values: Float64Array
}

/** What the import read, for its sync record (the writer knows what it changed). */
export interface SyncSources {
  /** The sources as given to the import. */
  sourceFiles: readonly string[]
  read: RecordCounts
}

/**
 * Bulk upserts for the import, all inside ONE transaction that `commit` ends. Each store uses its
 * driver's fastest path (better-sqlite3 prepared statements; PostgreSQL COPY into staging tables).
 * Rows with the same key replace each other; the last one given wins; a row equal to the stored
 * one is not written. The store records the keys of what changed as it goes (src/storage/changes/).
 * References are checked at commit (foreign keys deferred), so a row may come before the account
 * or brand it names.
 */
export interface ImportWriter {
  /** Writes or buffers one row; returns a promise only when it had to write a batch (await it). */
  add: (row: ImportRow) => Promise<void> | undefined
  /**
   * Daily rows as columns, the same as `add` of each in order; a store without it is given the
   * rows one by one. SQLite binds them straight from the columns (no row object per row).
   */
  addDailyColumns?: (columns: DailyColumns) => Promise<void> | undefined
  /**
   * Writes what is buffered, brings the read model up to date from what changed, records the sync
   * with its events (docs/import.md "Syncs"), and commits. Returns the sync as committed.
   * `renderBatch`, when given, renders the brand-days' entries elsewhere while the store sums the
   * next ones (SQLite; PostgreSQL renders them itself).
   */
  commit: (sources: SyncSources, renderBatch?: BrandDayBatchRenderer) => Promise<Sync>
  /** Abandons everything written since the writer was opened. Safe after a failed commit. */
  rollback: () => Promise<void>
}
