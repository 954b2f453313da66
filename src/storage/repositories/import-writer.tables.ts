import { DAILY_COUNT_METRICS } from '../../domain/metrics.js'
import type { Database } from '../database.js'

/**
 * The four tables an import writes, described once for both bulk writers: columns in write order,
 * the conflict key (the record's identity, DECISIONS.md §9), and PostgreSQL types for the
 * array casts. `stamped` tables get `updated_at` = the import's start time.
 */
export interface ImportTable {
  table: keyof Database
  columns: readonly string[]
  pgTypes: readonly string[]
  key: readonly string[]
  stamped: boolean
}

function table (name: keyof Database, spec: Record<string, string>, key: string[], stamped: boolean): ImportTable {
  return { table: name, columns: Object.keys(spec), pgTypes: Object.values(spec), key, stamped }
}

export const BRANDS_TABLE = table('brands', { brand_id: 'bigint', brand_name: 'text' }, ['brand_id'], true)

export const ACCOUNTS_TABLE = table('accounts', {
  platform: 'text',
  account_id: 'bigint',
  brand_id: 'bigint',
  account_name: 'text',
  network_id: 'text',
  storage_avatar: 'text',
  permalink: 'text',
}, ['platform', 'account_id'], true)

export const DAILY_TABLE = table('daily_metrics', {
  platform: 'text',
  account_id: 'bigint',
  date: 'date',
  revenue_micros: 'bigint',
  ...Object.fromEntries(DAILY_COUNT_METRICS.map((metric) => [metric, 'bigint'])),
}, ['platform', 'account_id', 'date'], false)

export const POSTS_TABLE = table('posts', {
  platform: 'text',
  id: 'text',
  account_id: 'bigint',
  created_time: 'timestamptz',
  type: 'text',
  post_type: 'text',
  title: 'text',
  description: 'text',
  permalink: 'text',
  thumbnail_url: 'text',
  subjects: 'text',
  category: 'text',
  views: 'bigint',
  likes: 'bigint',
  comments: 'bigint',
  shares: 'bigint',
  interactions: 'bigint',
  reach: 'bigint',
  impressions: 'bigint',
  revenue_micros: 'bigint',
}, ['platform', 'id'], true)

/** `col = excluded.col` for every non-key column: a re-imported record replaces the row. */
export function updateAssignments (spec: ImportTable): string {
  const columns = [...spec.columns, ...(spec.stamped ? ['updated_at'] : [])]
  return columns.filter((column) => !spec.key.includes(column)).map((column) => `${column} = excluded.${column}`).join(', ')
}
