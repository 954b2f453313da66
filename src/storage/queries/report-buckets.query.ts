import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely'
import { REPORTED_METRICS } from '../../domain/metric-catalog.js'
import type { Period } from '../../domain/period.js'
import type { TimeDimension } from '../../domain/reports.js'
import type { Scope } from '../../domain/scope.js'
import type { Dialect } from '../db.js'
import type { Database } from '../database.js'
import { NO_DATES, splitPeriod } from './brand-reports.query.js'
import { accountsInScope } from './status-sql.js'

/**
 * POST /reports' two reads (docs/reports.md). The report itself is shaped from one row per account
 * and time bucket (what comes back is bounded by accounts × buckets). Its work is the scope's
 * account-days in the period, read through the primary key — or, when the time dimension is absent
 * or a month or coarser, one account_monthly row per account and whole month plus the raw days of
 * the partial months at the period's edges (monthBlocksOf). Either way each row has:
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

/**
 * The bucket of a date column (`d.date`, or `m.month`: a month's first day) as the store groups it:
 * on PostgreSQL the date or its `date_trunc` (text comes after grouping, bucketText: formatting
 * every account-day of a year was half of a week report's statement), on SQLite its first day as
 * text `YYYY-MM-DD`.
 */
function bucketKeyOf (dialect: Dialect, dimension: TimeDimension | undefined, column: 'd.date' | 'm.month'): RawBuilder<unknown> {
  if (dimension === undefined) return sql<string>`${sql.lit('')}`
  const date = sql.ref(column)
  if (dialect === 'postgres') return dimension === 'date' ? date : sql`date_trunc(${sql.lit(dimension)}, cast(${date} as timestamp))`
  switch (dimension) {
    case 'date': return sql<string>`${date}`
    // SQLite: the next Sunday (or the day itself), then back to its Monday.
    case 'week': return sql<string>`date(${date}, 'weekday 0', '-6 days')`
    case 'month': return sql<string>`substr(${date}, 1, 7) || '-01'`
    case 'quarter': return sql<string>`substr(${date}, 1, 5) || case when substr(${date}, 6, 2) <= '03' then '01' when substr(${date}, 6, 2) <= '06' then '04' when substr(${date}, 6, 2) <= '09' then '07' else '10' end || '-01'`
    case 'year': return sql<string>`substr(${date}, 1, 4) || '-01-01'`
  }
}

/** A bucket key (bucketKeyOf) as text `YYYY-MM-DD` ('' without a time dimension). */
function bucketText (dialect: Dialect, dimension: TimeDimension | undefined, key: RawBuilder<unknown>): RawBuilder<string> {
  return dialect === 'postgres' && dimension !== undefined ? sql<string>`to_char(${key}, ${sql.lit('YYYY-MM-DD')})` : sql<string>`${key}`
}

export interface AccountBucketsInput {
  dialect: Dialect
  scope: Scope
  period: Period
  dimension: TimeDimension | undefined
  /** The metric columns to sum, a subset of REPORT_COLUMNS. */
  columns: readonly string[]
  /** Whether to read each account-bucket's last reported followers (a stock is asked); else last_followers is null. */
  lastFollowers: boolean
}

/**
 * Whether a report reads whole months from account_monthly: when its time dimension is absent or
 * a month or coarser (every month lies inside one bucket), and it sums no column the rollup keeps
 * by another rule (followers is its last value there, not a sum: no metric of the catalogue sums
 * it, but a report that did would read the days).
 */
export function readsMonthBlocks (dimension: TimeDimension | undefined, summed: readonly string[]): boolean {
  return dimension !== 'date' && dimension !== 'week' && !summed.includes('followers')
}

/** Rows of account-buckets, and — when they carry it themselves — the SQL of their last followers over `l`. */
interface Pieces {
  rows: RawBuilder<unknown>
  lastFollowers?: RawBuilder<unknown>
}

export function buildAccountBucketsQuery (db: Kysely<Database>, input: AccountBucketsInput): CompiledQuery<AccountBucketRow> {
  const summed = REPORT_COLUMNS.filter((column) => input.columns.includes(column))
  const pieces: Pieces = readsMonthBlocks(input.dimension, summed)
    ? monthBlocksOf(input, summed)
    // PostgreSQL carries each bucket's last followers through the grouping (daysOf): one look-up per
    // account-bucket cost as much as the rest of a week report's statement.
    : input.dialect === 'postgres' && input.lastFollowers
      ? { rows: daysOf(input, summed, input.period, true), lastFollowers: sql`l.own_followers` }
      : { rows: daysOf(input, summed, input.period) }
  // The followers of the bucket's last day that reported them, by primary key (null: none did).
  const lastFollowers = !input.lastFollowers
    ? sql`null`
    : pieces.lastFollowers ?? sql`(select f.followers from daily_metrics f
      where f.platform = l.platform and f.account_id = l.account_id and f.date = l.followers_date)`
  return sql<AccountBucketRow>`select l.*, ${lastFollowers} as last_followers from (${pieces.rows}) l`.compile(db)
}

/**
 * One row per account and bucket from the raw account-days of `range`: the columns summed, the
 * days counted, the last day that reported followers (when asked) — or, with `carried` (PostgreSQL),
 * that day's followers themselves as `own_followers`: the greatest [day, followers] pair of the
 * bucket's days that reported followers.
 */
function daysOf (input: AccountBucketsInput, summed: readonly string[], range: Period, carried = false): RawBuilder<unknown> {
  const { dialect, scope, dimension } = input
  const sums = summed.map((column) => sql`, sum(${sql.ref(`x.${column}`)}) as ${sql.ref(column)}`)
  const columns = [...new Set([...summed, ...(input.lastFollowers ? ['followers'] : [])])].map((column) => sql`, ${sql.ref(`d.${column}`)}`)
  const followers = carried
    ? sql`null as followers_date, (max(case when x.followers is not null then array[x.date - date '2000-01-01', x.followers] end))[2] as own_followers`
    : sql`${input.lastFollowers ? sql`max(case when x.followers is not null then x.date end)` : sql`null`} as followers_date`
  return sql`select x.platform, x.account_id, x.brand_id, ${bucketText(dialect, dimension, sql`x.bucket`)} as bucket, count(*) as days_reported,
        ${followers}${sql.join(sums, sql``)}
      from (
        select d.platform, d.account_id, a.brand_id, d.date, ${bucketKeyOf(dialect, dimension, 'd.date')} as bucket${sql.join(columns, sql``)}
        from daily_metrics d inner join accounts a on a.platform = d.platform and a.account_id = d.account_id
        where ${accountsInScope(scope)} and d.date >= ${range.since} and d.date <= ${range.until}
      ) x
      group by x.platform, x.account_id, x.brand_id, x.bucket`
}

/**
 * The same rows, read from the month rollup where it has them: each whole month of the period is
 * one account_monthly row per account (already summed, with its days counted in rows_count, its
 * last reported followers and that day), the partial months at either edge are raw account-days
 * (daysOf); the pieces are summed per account and bucket, keeping the latest followers day, whose
 * value is looked up. Exactly the raw days' sums: a month's rollup is its days summed. A period of
 * whole months only has one piece per account and bucket: its followers are the month row's own.
 */
function monthBlocksOf (input: AccountBucketsInput, summed: readonly string[]): Pieces {
  const { dialect, scope, period, dimension } = input
  const { months, head, tail } = splitPeriod(period)
  const pieces: Array<RawBuilder<unknown>> = []
  const edges = [head, tail].filter((edge) => edge.from !== NO_DATES.from)
  const alone = edges.length === 0
  if (months.from !== NO_DATES.from) {
    const columns = summed.map((column) => sql`, ${sql.ref(`m.${column}`)} as ${sql.ref(column)}`)
    const followers = alone && input.lastFollowers ? sql`, m.followers as own_followers` : sql``
    pieces.push(sql`select m.platform, m.account_id, a.brand_id, ${bucketText(dialect, dimension, bucketKeyOf(dialect, dimension, 'm.month'))} as bucket, m.rows_count as days_reported,
        ${input.lastFollowers ? sql`m.followers_date` : sql`null`} as followers_date${followers}${sql.join(columns, sql``)}
      from account_monthly m inner join accounts a on a.platform = m.platform and a.account_id = m.account_id
      where ${accountsInScope(scope)} and m.month >= ${months.from} and m.month <= ${months.to}`)
    if (alone) return { rows: pieces[0] as RawBuilder<unknown>, lastFollowers: sql`l.own_followers` }
  }
  for (const edge of edges) pieces.push(daysOf(input, summed, { since: edge.from, until: edge.to }))
  if (pieces.length === 1) return { rows: pieces[0] as RawBuilder<unknown> }
  const sums = summed.map((column) => sql`, sum(${sql.ref(`p.${column}`)}) as ${sql.ref(column)}`)
  return {
    rows: sql`select p.platform, p.account_id, p.brand_id, p.bucket, sum(p.days_reported) as days_reported,
      max(p.followers_date) as followers_date${sql.join(sums, sql``)}
    from (${sql.join(pieces, sql` union all `)}) p
    group by p.platform, p.account_id, p.brand_id, p.bucket`,
  }
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
