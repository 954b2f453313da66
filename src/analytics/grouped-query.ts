import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Scope } from '../access/scope.js'
import type { Period } from '../http/params.js'
import type { Dialect } from '../storage/db.js'
import type { Database } from '../storage/database.js'
import { SUMMED_METRICS, engagementDenominatorOfRow, platformRankOfRow, type GroupRow } from './metrics.js'

/**
 * The one SQL shape behind the three reports: the account-days in scope and period (an inner
 * query over daily_metrics joined to accounts), grouped in the store by time bucket × brand or
 * account × platform, with every metric summed there. Followers take, per account, the last
 * value it reported inside the bucket (a window function), then sum over accounts.
 */

/** The time bucket of a report: one day, one calendar month, or the whole period. */
export type Bucket = 'day' | 'month' | 'period'

export interface Grouping {
  bucket: Bucket
  /** Split by brand_id or account_id, or by neither (split_by_platform=true). */
  by: 'brand' | 'account' | 'none'
  /** Separate groups per platform (platform given, or split_by_platform=true). */
  byPlatform: boolean
}

export interface GroupedQueryInput {
  dialect: Dialect
  scope: Scope
  period: Period
  grouping: Grouping
  /** Only rows on or before this date (daily paging: the cursor's date). */
  lastDate?: string | undefined
}

/** The month of a `date` column, `YYYY-MM`; the one place the dialects differ. */
function monthOf (dialect: Dialect, date: RawBuilder<unknown>): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`to_char(${date}, ${sql.lit('YYYY-MM')})`
    : sql<string>`substr(${date}, 1, 7)`
}

function bucketOf (dialect: Dialect, bucket: Bucket): RawBuilder<string> {
  if (bucket === 'day') return sql<string>`d.date`
  if (bucket === 'month') return monthOf(dialect, sql`d.date`)
  return sql<string>`${sql.lit('')}`
}

/** The scope's account-days in the period, one row each, with their grouping keys computed. */
export function buildScopedRowsQuery (db: Kysely<Database>, input: GroupedQueryInput) {
  const { scope, period, grouping, dialect } = input
  const bucket = bucketOf(dialect, grouping.bucket)
  const groupId = grouping.by === 'brand' ? sql<number>`a.brand_id` : grouping.by === 'account' ? sql<number>`d.account_id` : sql<number>`${sql.lit(0)}`
  const platformRank = grouping.byPlatform ? platformRankOfRow(sql`d.platform`) : sql<number>`${sql.lit(0)}`

  let rows = db.selectFrom('daily_metrics as d')
    .innerJoin('accounts as a', (join) => join.onRef('a.platform', '=', 'd.platform').onRef('a.account_id', '=', 'd.account_id'))
    .where('d.date', '>=', period.since)
    .where('d.date', '<=', input.lastDate !== undefined && input.lastDate < period.until ? input.lastDate : period.until)
  rows = scope.kind === 'accounts'
    ? rows.where('d.platform', '=', scope.platform).where('d.account_id', 'in', scope.accounts.map((account) => Number(account.account_id)))
    : rows.where('a.brand_id', 'in', scope.brandIds)
  if (scope.kind === 'brands' && scope.platforms !== undefined) rows = rows.where('d.platform', 'in', scope.platforms)

  // Per account and bucket, rank 1 is the latest day that reported followers (nulls last).
  const followerRank = grouping.bucket === 'day'
    ? sql<number>`${sql.lit(1)}`
    : sql<number>`row_number() over (partition by d.platform, d.account_id${grouping.bucket === 'month' ? sql`, ${bucket}` : sql``} order by case when d.followers is null then 1 else 0 end, d.date desc)`

  return rows.select([
    bucket.as('bucket'),
    groupId.as('group_id'),
    platformRank.as('platform_rank'),
    followerRank.as('follower_rank'),
    'd.followers',
    'd.revenue_micros',
    engagementDenominatorOfRow(sql`d.platform`, sql`d.reach`, sql`d.views`).as('engagement_denominator'),
    ...SUMMED_METRICS.map((metric) => sql.ref(`d.${metric}`).as(metric)),
  ])
}

/**
 * Groups of the scoped rows with their sums; no order, no limit (each report adds its own).
 * The group keys are plain columns of the inner query, so both dialects group by the same names.
 */
export function buildGroupedQuery (db: Kysely<Database>, input: GroupedQueryInput) {
  const inner = buildScopedRowsQuery(db, input)
  const sum = (column: string) => sql<number | null>`sum(${sql.ref(`r.${column}`)})`
  return db.selectFrom(inner.as('r'))
    .select([
      sql.ref('r.bucket').as('bucket'),
      sql.ref('r.group_id').as('group_id'),
      sql.ref('r.platform_rank').as('platform_rank'),
      sum('revenue_micros').as('revenue_micros'),
      sql<number | null>`sum(case when r.follower_rank = 1 then r.followers end)`.as('followers'),
      sum('engagement_denominator').as('engagement_denominator'),
      ...SUMMED_METRICS.map((metric) => sum(metric).as(metric)),
    ])
    .groupBy([sql.ref('r.bucket'), sql.ref('r.group_id'), sql.ref('r.platform_rank')])
}

export type GroupedQuery = ReturnType<typeof buildGroupedQuery>

/** Runs a grouped query (with whatever order/limit a report added) and types its rows. */
export async function runGroupedQuery (query: GroupedQuery): Promise<GroupRow[]> {
  return (await query.execute()) as unknown as GroupRow[]
}
