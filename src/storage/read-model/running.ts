import { ROLLUP_METRICS } from './columns.js'

/**
 * brand_daily_running (migration 2026_11_29_0000_brand_daily_running): for each brand-day, the
 * brand's sums from the first of its month through that day (`<metric>_mtd`) and from that day
 * through the month's last day (`<metric>_rest`), summed in the store (exact integers, NULL where
 * no day of the range reported the metric, as sum() is). A partial month at either edge of an agg
 * period is then one row, not up to 30 days summed (src/storage/queries/brand-reports.query.ts).
 * Followers are not kept: an agg reads them per account (their own rule).
 *
 * Kept by the read model's refresh in the import's transaction, a brand-month at a time like
 * brand_daily: each brand-month the import touched is deleted and summed again from its brand_daily
 * rows (a running total only ever spans one month, so nothing outside the touched months moves).
 */

/** The metrics it keeps, in ROLLUP_METRICS order. */
export const RUNNING_METRICS = ROLLUP_METRICS.filter((metric) => metric !== 'followers')

/** Its metric columns: each metric's `_mtd` then its `_rest`. */
export const RUNNING_COLUMNS = RUNNING_METRICS.flatMap((metric) => [`${metric}_mtd`, `${metric}_rest`]).join(', ')

/**
 * Deletes the running totals of every brand-month in touched_bm, then sums them again from
 * brand_daily (which the refresh has already rewritten for those brand-months).
 */
export function runningRefreshStatements (dialect: 'sqlite' | 'postgres'): [string, string] {
  const postgres = dialect === 'postgres'
  const remove = postgres
    ? 'delete from brand_daily_running r using touched_bm t where r.brand_id = t.brand_id and r.date between t.month and t.last_day'
    : `delete from brand_daily_running where (brand_id, date) in (select r.brand_id, r.date
        from touched_bm t cross join brand_daily_running r where r.brand_id = t.brand_id and r.date between t.month and t.last_day)`
  const cast = postgres ? '::bigint' : ''
  const join = postgres
    ? 'from touched_bm t join brand_daily b on b.brand_id = t.brand_id and b.date between t.month and t.last_day'
    : 'from touched_bm t cross join brand_daily b where b.brand_id = t.brand_id and b.date between t.month and t.last_day'
  // The brand-days of a month are unique by date, so the default RANGE frame is the running sum.
  const insert = `insert into brand_daily_running (brand_id, date, ${RUNNING_COLUMNS})
    select b.brand_id, b.date, ${RUNNING_METRICS.map((metric) => `(sum(b.${metric}) over upto)${cast}, (sum(b.${metric}) over onwards)${cast}`).join(', ')}
    ${join}
    window upto as (partition by t.brand_id, t.month order by b.date), onwards as (partition by t.brand_id, t.month order by b.date desc)`
  return [remove, insert]
}
