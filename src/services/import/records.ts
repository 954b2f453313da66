import type { AccountsTable, BrandsTable, DailyMetricsTable, PostsTable } from '../../storage/database.js'

/**
 * Import records once validated: exactly the rows the store keeps (minus `updated_at`, which the
 * writer stamps), tagged with their kind. Shapes of the file format: docs/import.md, docs/import.md.
 */

export const RECORD_KINDS = ['brand', 'account', 'daily', 'post'] as const
export type RecordKind = (typeof RECORD_KINDS)[number]

export type BrandRecord = { kind: 'brand' } & Omit<BrandsTable, 'updated_at'>
export type AccountRecord = { kind: 'account' } & Omit<AccountsTable, 'updated_at'>
export type DailyRecord = { kind: 'daily' } & DailyMetricsTable
export type PostRecord = { kind: 'post' } & Omit<PostsTable, 'updated_at'>

export type ImportRecord = BrandRecord | AccountRecord | DailyRecord | PostRecord
