import type { AccountsTable, BrandsTable, DailyMetricsTable, PostsTable } from '../database.js'

/** One record of an import, validated: exactly the row the store keeps (minus `updated_at`, stamped by the writer). */
export type ImportRow =
  | ({ kind: 'brand' } & Omit<BrandsTable, 'updated_at'>)
  | ({ kind: 'account' } & Omit<AccountsTable, 'updated_at'>)
  | ({ kind: 'daily' } & DailyMetricsTable)
  | ({ kind: 'post' } & Omit<PostsTable, 'updated_at'>)

/**
 * Bulk upserts for the import, all inside ONE transaction that `commit` ends. Each store uses its
 * driver's fastest path (better-sqlite3 prepared statements; PostgreSQL COPY into staging tables).
 * Rows with the same key replace each other; the last one given wins. References are checked at
 * commit (foreign keys deferred), so a row may come before the account or brand it names.
 */
export interface ImportWriter {
  /** Writes or buffers one row; returns a promise only when it had to write a batch (await it). */
  add: (row: ImportRow) => Promise<void> | undefined
  /** Writes what is buffered, brings the read model up to date, and commits. */
  commit: () => Promise<void>
  /** Abandons everything written since the writer was opened. Safe after a failed commit. */
  rollback: () => Promise<void>
}
