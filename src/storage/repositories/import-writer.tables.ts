import { DAILY_COUNT_METRICS } from '../../domain/metrics.js'
import { POST_COLUMNS } from '../../domain/post-fields.js'
import type { Database } from '../database.js'

/**
 * The four tables an import writes, described once for both bulk writers: columns in write order,
 * and the conflict key (the record's identity, docs/import.md). `stamped` tables get
 * `updated_at` = the import's start time.
 */
export interface ImportTable {
  table: keyof Database
  columns: readonly string[]
  key: readonly string[]
  stamped: boolean
}

function table (name: keyof Database, columns: readonly string[], key: string[], stamped: boolean): ImportTable {
  return { table: name, columns, key, stamped }
}

export const BRANDS_TABLE = table('brands', ['brand_id', 'brand_name'], ['brand_id'], true)

export const ACCOUNTS_TABLE = table('accounts', ['platform', 'account_id', 'brand_id', 'account_name', 'network_id', 'storage_avatar', 'permalink'], ['platform', 'account_id'], true)

export const DAILY_TABLE = table('daily_metrics', ['platform', 'account_id', 'date', 'revenue_micros', ...DAILY_COUNT_METRICS], ['platform', 'account_id', 'date'], false)

export const POSTS_TABLE = table('posts', POST_COLUMNS, ['platform', 'id'], true)

/** `col = excluded.col` for every non-key column: a re-imported record replaces the row. */
export function updateAssignments (spec: ImportTable): string {
  const columns = [...spec.columns, ...(spec.stamped ? ['updated_at'] : [])]
  return columns.filter((column) => !spec.key.includes(column)).map((column) => `${column} = excluded.${column}`).join(', ')
}

/**
 * The DO UPDATE's condition: some data column differs (null-safe; `updated_at` is not data). A
 * record equal to the stored row is then not written at all — no new row version, no trigger, no
 * change recorded — so a re-import of identical rows changes and writes nothing (docs/import.md
 * "Syncs"). SQLite spells the null-safe comparison `IS NOT`, PostgreSQL `IS DISTINCT FROM`.
 */
export function changedCondition (spec: ImportTable, dialect: 'sqlite' | 'postgres'): string {
  const differs = dialect === 'sqlite' ? 'is not' : 'is distinct from'
  return spec.columns.filter((column) => !spec.key.includes(column))
    .map((column) => `${spec.table}.${column} ${differs} excluded.${column}`).join(' or ')
}

/** The upsert both writers run: insert, or replace the row when a data column differs. */
export function upsertClause (spec: ImportTable, dialect: 'sqlite' | 'postgres'): string {
  return `on conflict (${spec.key.join(', ')}) do update set ${updateAssignments(spec)} where ${changedCondition(spec, dialect)}`
}
