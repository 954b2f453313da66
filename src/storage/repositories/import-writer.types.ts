import type { AccountsTable, BrandsTable, DailyMetricsTable, PostsTable } from '../database.js'

/**
 * Bulk upserts for the import, all inside ONE transaction that `commit` ends. Each store uses its
 * driver's fastest path (better-sqlite3 prepared statements; PostgreSQL multi-row upserts over
 * arrays). Rows with the same key replace each other; the last one given wins.
 */
export interface ImportWriter {
  upsertBrands: (rows: Iterable<Omit<BrandsTable, 'updated_at'>>) => Promise<void>
  upsertAccounts: (rows: Iterable<Omit<AccountsTable, 'updated_at'>>) => Promise<void>
  /** Buffers or writes one row; returns a promise only when it had to write a batch (await it). */
  addDaily: (row: DailyMetricsTable) => Promise<void> | undefined
  addPost: (row: Omit<PostsTable, 'updated_at'>) => Promise<void> | undefined
  /** Writes what is buffered and commits. */
  commit: () => Promise<void>
  /** Abandons everything written since the writer was opened. Safe after a failed commit. */
  rollback: () => Promise<void>
}
