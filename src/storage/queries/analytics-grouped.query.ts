import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Scope } from '../../domain/scope.js'
import type { Period } from '../../domain/period.js'
import type { Dialect } from '../db.js'
import type { Database } from '../database.js'
import type { Bucket, GroupRow, Grouping } from '../../domain/analytics.js'
import { SUMMED_METRICS } from '../../domain/metrics.js'
import { engagementDenominatorOfRow, platformRankOfRow } from './sql-helpers.js'

/**
 * The one SQL shape behind the three reports, in two levels (docs/benchmarks.md has the profile):
 *
 * 1. per account × time bucket, over the scope's account-days in the period: every metric
 *    summed, and the date of the last day inside the bucket that reported followers
 *    (`max(case … end)`, no window function);
 * 2. each of those rows with its brand_id (from accounts) and, by primary key, the followers of
 *    that last date, then grouped by time bucket × brand or account × platform with the level-1
 *    sums summed again.
 *
 * Summing per account first and adding the sums is the same exact integer arithmetic as summing
 * the account-days directly; it lets the store carry a few hundred rows instead of thousands into
 * the final grouping, and replaces a window over every account-day with one look-up per account
 * and bucket.
 */

export interface GroupedQueryInput {
  dialect: Dialect
  scope: Scope
  period: Period
  grouping: Grouping
  /** Only rows on or before this date (daily paging: the cursor's date). */
  lastDate?: string | undefined
}

/** The month of a `date` column, `YYYY-MM`: one place the dialects differ (level 1's scope is the other). */
function monthOf (dialect: Dialect, date: RawBuilder<unknown>): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`to_char(${date}, ${sql.lit('YYYY-MM')})`
    : sql<string>`substr(${date}, 1, 7)`
}

/** The bucket of a daily row; undefined for the whole period (nothing to group by). */
function bucketOf (dialect: Dialect, bucket: Bucket): RawBuilder<string> | undefined {
  if (bucket === 'day') return sql<string>`d.date`
  if (bucket === 'month') return monthOf(dialect, sql`d.date`)
  return undefined
}

// The metric columns of each level are the same for every request, and Kysely's nodes are
// immutable, so they are built once: building them per request cost more than compiling.
const LEVEL1_SUMS = ['revenue_micros', ...SUMMED_METRICS].map((metric) => sql<number | null>`sum(${sql.ref(`d.${metric}`)})`.as(metric))
const LEVEL1_DAY_VALUES = ['revenue_micros', ...SUMMED_METRICS].map((metric) => sql.ref<number | null>(`d.${metric}`).as(metric))
const LEVEL2_METRICS = [
  sql.ref<number | null>('l.revenue_micros').as('revenue_micros'),
  // The platform is fixed within an account, so the level-1 sums of reach or views are
  // exactly the sums of each row's denominator.
  engagementDenominatorOfRow(sql`l.platform`, sql`l.reach`, sql`l.views`).as('engagement_denominator'),
  ...SUMMED_METRICS.map((metric) => sql.ref<number | null>(`l.${metric}`).as(metric)),
]
const GROUP_SUMS = ['revenue_micros', 'followers', 'engagement_denominator', ...SUMMED_METRICS]
  .map((column) => sql<number | null>`sum(${sql.ref(`r.${column}`)})`.as(column))

/**
 * Whether level 1 reads a brand scope through a join with accounts (and so yields brand_id):
 * always on SQLite, and on PostgreSQL for day buckets, which level 1 does not group (no sort to
 * avoid, and the join spares level 2 a second look at accounts).
 */
function joinsAccountsFirst (input: GroupedQueryInput): boolean {
  return input.scope.kind === 'brands' && (input.dialect === 'sqlite' || input.grouping.bucket === 'day')
}

/**
 * Level 1: one row per account and bucket with at least one account-day in scope and period.
 * A day bucket is one account-day (the primary key), so there it is the row itself, ungrouped,
 * with its own followers (grouping rows that are already unique only costs a sort); month and
 * period buckets are grouped and carry `followers_date` for level 2 to look up.
 *
 * How it reads a brand scope's accounts is the other place the dialects differ: each form is the
 * one whose plan groups without sorting every account-day (measured in docs/benchmarks.md).
 * - A join, which also yields `brand_id` so level 2 needs no second look at accounts. SQLite walks
 *   it through accounts_brand_idx, so rows arrive by brand, platform, account, and grouping by
 *   those keys (brand first) needs no temporary b-tree for the period bucket.
 * - A semi-join for PostgreSQL's month and period buckets: rows arrive in primary-key order and
 *   grouping needs only an incremental sort; with the join it sorts every account-day (1.4× the
 *   time for a monthly year). Its `brand_id` is null and level 2 joins accounts for it.
 */
export function buildAccountBucketsQuery (db: Kysely<Database>, input: GroupedQueryInput) {
  const { scope, period, grouping, dialect } = input
  const bucket = bucketOf(dialect, grouping.bucket)
  const perDay = grouping.bucket === 'day'
  const columns = (account: 'a' | 'd') => [
    sql.ref<string>(`${account}.platform`).as('platform'),
    sql.ref<number>(`${account}.account_id`).as('account_id'),
    (account === 'a' ? sql<number | null>`a.brand_id` : sql<number | null>`null`).as('brand_id'),
    (bucket ?? sql<string>`${sql.lit('')}`).as('bucket'),
    (perDay ? sql<number | null>`d.followers` : sql<number | null>`null`).as('followers'),
    (perDay ? sql<string | null>`null` : sql<string | null>`max(case when d.followers is not null then d.date end)`).as('followers_date'),
    ...(perDay ? LEVEL1_DAY_VALUES : LEVEL1_SUMS),
  ]
  const groupKeys = (...account: string[]) => [...account.map((key) => sql.ref(key)), ...(bucket === undefined ? [] : [bucket])]

  const days = db.selectFrom('daily_metrics as d')
    .where('d.date', '>=', period.since)
    .where('d.date', '<=', input.lastDate !== undefined && input.lastDate < period.until ? input.lastDate : period.until)
  if (scope.kind === 'accounts') {
    return days
      .where('d.platform', '=', scope.platform)
      .where('d.account_id', 'in', scope.accounts.map((account) => Number(account.account_id)))
      .select(columns('d'))
      .$if(!perDay, (query) => query.groupBy(groupKeys('d.platform', 'd.account_id')))
      .as('l')
  }
  if (joinsAccountsFirst(input)) {
    let joined = days
      .innerJoin('accounts as a', (join) => join.onRef('a.platform', '=', 'd.platform').onRef('a.account_id', '=', 'd.account_id'))
      .where('a.brand_id', 'in', scope.brandIds)
    if (scope.platforms !== undefined) joined = joined.where('d.platform', 'in', scope.platforms)
    return joined
      .select(columns('a'))
      .$if(!perDay, (query) => query.groupBy(groupKeys('a.brand_id', 'a.platform', 'a.account_id')))
      .as('l')
  }
  let accounts = db.selectFrom('accounts').select(['platform', 'account_id']).where('brand_id', 'in', scope.brandIds)
  if (scope.platforms !== undefined) accounts = accounts.where('platform', 'in', scope.platforms)
  return days
    .where((eb) => eb(eb.refTuple('d.platform', 'd.account_id'), 'in', accounts.$asTuple('platform', 'account_id')))
    .select(columns('d'))
    .$if(!perDay, (query) => query.groupBy(groupKeys('d.platform', 'd.account_id')))
    .as('l')
}

/**
 * Level 2, before grouping: each account-bucket with its grouping keys and its followers. The
 * keys are plain columns here, so both dialects group (and daily paging filters) by the same names.
 */
function buildKeyedRowsQuery (db: Kysely<Database>, input: GroupedQueryInput) {
  const { grouping } = input
  // The brand comes from level 1 when it joined accounts; otherwise from accounts here.
  const joinsAccounts = grouping.by === 'brand' && !joinsAccountsFirst(input)
  const groupId = grouping.by === 'brand'
    ? (joinsAccounts ? sql<number>`a.brand_id` : sql<number>`l.brand_id`)
    : grouping.by === 'account' ? sql<number>`l.account_id` : sql<number>`${sql.lit(0)}`
  const platformRank = grouping.byPlatform ? platformRankOfRow(sql`l.platform`) : sql<number>`${sql.lit(0)}`
  return db.selectFrom(buildAccountBucketsQuery(db, input))
    .$if(joinsAccounts, (query) => query.innerJoin('accounts as a', (join) => join.onRef('a.platform', '=', 'l.platform').onRef('a.account_id', '=', 'l.account_id')))
    .select((eb) => [
      sql.ref('l.bucket').as('bucket'),
      groupId.as('group_id'),
      platformRank.as('platform_rank'),
      // Month and period: the account's last reported followers in the bucket, by primary key
      // (null when it reported none). A correlated look-up rather than a left join, so that
      // PostgreSQL cannot plan it as a hash of the whole table: it cannot estimate how few
      // account-buckets level 1 yields (10 609 estimated vs 391 for a monthly year).
      (grouping.bucket === 'day'
        ? sql.ref<number | null>('l.followers')
        : eb.selectFrom('daily_metrics as f').select('f.followers')
          .whereRef('f.platform', '=', 'l.platform')
          .whereRef('f.account_id', '=', 'l.account_id')
          .whereRef('f.date', '=', 'l.followers_date')
      ).as('followers'),
      ...LEVEL2_METRICS,
    ])
}

/**
 * Groups of the account-buckets with their sums; no order, no limit (each report adds its own).
 */
export function buildGroupedQuery (db: Kysely<Database>, input: GroupedQueryInput) {
  const inner = buildKeyedRowsQuery(db, input)
  return db.selectFrom(inner.as('r'))
    .select([
      sql.ref('r.bucket').as('bucket'),
      sql.ref('r.group_id').as('group_id'),
      sql.ref('r.platform_rank').as('platform_rank'),
      ...GROUP_SUMS,
    ])
    .groupBy([sql.ref('r.bucket'), sql.ref('r.group_id'), sql.ref('r.platform_rank')])
}

export type GroupedQuery = ReturnType<typeof buildGroupedQuery>

/** Runs a grouped query (with whatever order/limit a report added) and types its rows. */
export async function runGroupedQuery (query: GroupedQuery): Promise<GroupRow[]> {
  return (await query.execute()) as unknown as GroupRow[]
}
