import type { GroupRow } from '../../domain/analytics.js'
import { ROLLUP_METRICS } from './columns.js'

/**
 * Summed groups as the store's prepared statements return them: arrays of `bucket, group_id,
 * platform_rank`, then the metrics in ROLLUP_METRICS order (no object per row from the driver).
 */
export const REPORT_COLUMNS = ['bucket', 'group_id', 'platform_rank', ...ROLLUP_METRICS] as const

/** `b.date, b.brand_id, 0, b.<metric>…`: a brand_daily row (alias `b`) in REPORT_COLUMNS order. */
export const BRAND_DAY_COLUMNS = `b.date, b.brand_id, 0, ${ROLLUP_METRICS.map((metric) => `b.${metric}`).join(', ')}`

/** One array row in REPORT_COLUMNS order as a group row (a column after them is the brand's name). */
export function groupRowOf (row: readonly unknown[]): GroupRow {
  const out: Record<string, unknown> = {}
  for (let index = 0; index < REPORT_COLUMNS.length; index += 1) out[REPORT_COLUMNS[index] as string] = row[index]
  if (row.length > REPORT_COLUMNS.length) out.brand_name = row[REPORT_COLUMNS.length]
  return out as GroupRow
}

/**
 * A brand-day's daily entry — a brand over every platform — as the JSON text the API writes for
 * it; given a brand-month (bucket `YYYY-MM`), its monthly entry over the whole month. Supplied by
 * the service that shapes entries (src/services/analytics/entries.ts); the read model stores its
 * output (brand_daily.entry_json, brand_monthly.entry_json) so a daily page, and a monthly
 * report's whole months, are their rows' texts joined.
 */
export type BrandDayRenderer = (row: GroupRow) => string

/**
 * BrandDayRenderer over many rows at once (arrays in REPORT_COLUMNS order), done elsewhere — the
 * import renders in a thread of its own while the store sums the next brand-days: the same text,
 * row for row.
 */
export type BrandDayBatchRenderer = (rows: unknown[][]) => Promise<string[]>
