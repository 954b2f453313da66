import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely'
import { REPORTED_METRICS } from '../../domain/metric-catalog.js'
import type { Period } from '../../domain/period.js'
import type { TimeDimension } from '../../domain/reports.js'
import type { Scope } from '../../domain/scope.js'
import type { Dialect } from '../db.js'
import type { Database } from '../database.js'
import { accountsInScope } from './status-sql.js'

/**
 * POST /reports' two reads (docs/reports.md). The report itself is shaped from one row per account
 * and time bucket (the work of the query is the scope's account-days in the period, read through
 * the primary key; what comes back is bounded by accounts × buckets):
 *
 * - each metric column the request needs (`columns`: reportColumnsOf in the service) summed over the
 *   account's days in the bucket (null when none reported it); a column no asked metric reads is
 *   not summed (summing all 17 of every account-day was most of a narrow report's time),
 * - how many of its days have a row (account-days reported),
 * - its followers on the last day of the bucket that reported followers (null when none did).
 *
 * And the accounts of the scope with their names and coverage (first and last day with a row),
 * which give the size estimate, the names and the account-days expected.
 */

/** The metric columns of daily_metrics, in catalogue order (revenue is stored in micro-units). */
export const REPORT_COLUMNS: readonly string[] = REPORTED_METRICS.map((metric) => metric === 'revenue' ? 'revenue_micros' : metric)

export type AccountBucketRow = {
  platform: string
  account_id: number | string
  brand_id: number | string
  /** First day of the bucket, `YYYY-MM-DD`; '' without a time dimension. */
  bucket: string
  days_reported: number | string
  /** The value of the last day in the bucket that reported followers. */
  last_followers: number | string | null
} & Record<string, number | string | null>

/** The first day of the bucket of a `date` column, as text `YYYY-MM-DD`. */
function bucketOf (dialect: Dialect, dimension: TimeDimension | undefined): RawBuilder<string> {
  if (dimension === undefined) return sql<string>`${sql.lit('')}`
  if (dialect === 'postgres') {
    const truncated = dimension === 'date' ? sql`d.date` : sql`date_trunc(${sql.lit(dimension)}, cast(d.date as timestamp))`
    return sql<string>`to_char(${truncated}, ${sql.lit('YYYY-MM-DD')})`
  }
  switch (dimension) {
    case 'date': return sql<string>`d.date`
    // SQLite: the next Sunday (or the day itself), then back to its Monday.
    case 'week': return sql<string>`date(d.date, 'weekday 0', '-6 days')`
    case 'month': return sql<string>`substr(d.date, 1, 7) || '-01'`
    case 'quarter': return sql<string>`substr(d.date, 1, 5) || case when substr(d.date, 6, 2) <= '03' then '01' when substr(d.date, 6, 2) <= '06' then '04' when substr(d.date, 6, 2) <= '09' then '07' else '10' end || '-01'`
    case 'year': return sql<string>`substr(d.date, 1, 4) || '-01-01'`
  }
}

export interface AccountBucketsInput {
  dialect: Dialect
  scope: Scope
  period: Period
  dimension: TimeDimension | undefined
  /** The metric columns to sum, a subset of REPORT_COLUMNS (followers is always read for the last value). */
  columns: readonly string[]
}

export function buildAccountBucketsQuery (db: Kysely<Database>, input: AccountBucketsInput): CompiledQuery<AccountBucketRow> {
  const { dialect, scope, period, dimension } = input
  const summed = REPORT_COLUMNS.filter((column) => input.columns.includes(column))
  const sums = summed.map((column) => sql`, sum(${sql.ref(`x.${column}`)}) as ${sql.ref(column)}`)
  const columns = [...new Set([...summed, 'followers'])].map((column) => sql.ref(`d.${column}`))
  return sql<AccountBucketRow>`select l.*, (select f.followers from daily_metrics f
      where f.platform = l.platform and f.account_id = l.account_id and f.date = l.followers_date) as last_followers
    from (
      select x.platform, x.account_id, x.brand_id, x.bucket, count(*) as days_reported,
        max(case when x.followers is not null then x.date end) as followers_date${sql.join(sums, sql``)}
      from (
        select d.platform, d.account_id, a.brand_id, d.date, ${bucketOf(dialect, dimension)} as bucket, ${sql.join(columns)}
        from daily_metrics d inner join accounts a on a.platform = d.platform and a.account_id = d.account_id
        where ${accountsInScope(scope)} and d.date >= ${period.since} and d.date <= ${period.until}
      ) x
      group by x.platform, x.account_id, x.brand_id, x.bucket
    ) l`.compile(db)
}

export interface ScopeAccountRow {
  platform: string
  account_id: number | string
  brand_id: number | string
  account_name: string
  brand_name: string
  first_date: string | null
  last_date: string | null
}

/** Every account of the scope, with its brand's name and its coverage (null: no row ever). */
export function buildScopeAccountsQuery (db: Kysely<Database>, scope: Scope): CompiledQuery<ScopeAccountRow> {
  return sql<ScopeAccountRow>`select a.platform, a.account_id, a.brand_id, a.account_name, b.brand_name, c.first_date, c.last_date
    from accounts a inner join brands b on b.brand_id = a.brand_id
    left join account_coverage c on c.platform = a.platform and c.account_id = a.account_id
    where ${accountsInScope(scope)}`.compile(db)
}
