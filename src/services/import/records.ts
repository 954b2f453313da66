import type { ImportRow } from '../../storage/repositories/import-writer.types.js'

/**
 * Import records once validated: exactly the rows the store keeps, tagged with their kind (the
 * file format: docs/import.md).
 */

export const RECORD_KINDS = ['brand', 'account', 'daily', 'post'] as const
export type RecordKind = (typeof RECORD_KINDS)[number]

export type ImportRecord = ImportRow
export type BrandRecord = Extract<ImportRow, { kind: 'brand' }>
export type AccountRecord = Extract<ImportRow, { kind: 'account' }>
export type DailyRecord = Extract<ImportRow, { kind: 'daily' }>
export type PostRecord = Extract<ImportRow, { kind: 'post' }>
