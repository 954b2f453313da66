import type { RecordCounts, Sync } from '../../domain/syncs.js'
import type { AccountsTable, BrandsTable, DailyMetricsTable, PostsTable } from '../database.js'

/** One record of an import, validated: exactly the row the store keeps (minus `updated_at`, stamped by the writer). */
export type ImportRow =
  | ({ kind: 'brand' } & Omit<BrandsTable, 'updated_at'>)
  | ({ kind: 'account' } & Omit<AccountsTable, 'updated_at'>)
  | ({ kind: 'daily' } & DailyMetricsTable)
  | ({ kind: 'post' } & Omit<PostsTable, 'updated_at'>)

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
   * Writes what is buffered, brings the read model up to date from what changed, records the sync
   * with its events (docs/import.md "Syncs"), and commits. Returns the sync as committed.
   */
  commit: (sources: SyncSources) => Promise<Sync>
  /** Abandons everything written since the writer was opened. Safe after a failed commit. */
  rollback: () => Promise<void>
}
