import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Scope } from '../../domain/scope.js'
import type { Period } from '../../domain/period.js'
import type { Dialect, Store } from '../db.js'
import type { Database } from '../database.js'
import type { GroupRow, Grouping } from '../../domain/analytics.js'
import { SUMMED_METRICS } from '../../domain/metrics.js'
import { splitPeriod } from './brand-reports.query.js'
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

// The metric columns of the upper levels are the same for every request, and Kysely's nodes are
// immutable, so they are built once: building them per request cost more than compiling.
const LEVEL2_METRICS = [
  sql.ref<number | null>('l.revenue_micros').as('revenue_micros'),
  // The platform is fixed within an account, so the level-1 sums of reach or views are
  // exactly the sums of each row's denominator.
  engagementDenominatorOfRow(sql`l.platform`, sql`l.reach`, sql`l.views`).as('engagement_denominator'),
  ...SUMMED_METRICS.map((metric) => sql.ref<number | null>(`l.${metric}`).as(metric)),
]
const GROUP_SUMS = ['revenue_micros', 'followers', 'engagement_denominator', ...SUMMED_METRICS]
  .map((column) => sql<number | null>`sum(${sql.ref(`r.${column}`)})`.as(column))

/** Level 1 reads a brand scope through a join with accounts, which also yields brand_id. */
function joinsAccountsFirst (input: GroupedQueryInput): boolean {
  return input.scope.kind === 'brands'
}

/**
 * Level 1: one row per account and bucket with at least one account-day in scope and period.
 *
 * A day bucket is one account-day (the primary key), so there it is the raw row itself, ungrouped,
 * with its own followers. Month and period buckets come from the read model where it has the
 * answer: whole months from account_monthly (one row per account-month, already summed, with the
 * date of its last reported followers), the partial months at the period's edges from the raw
 * rows; the pieces are summed per account and bucket, keeping the latest `followers_date` for
 * level 2 to look up. A brand scope reads its accounts through a join, which yields brand_id.
 */
export function buildAccountBucketsQuery (db: Kysely<Database>, input: GroupedQueryInput) {
  const { scope, period, grouping, dialect } = input
  const accountIds = scope.kind === 'accounts' ? scope.accounts.map((account) => Number(account.account_id)) : []
  const brandOf = scope.kind === 'brands' ? sql<number | null>`a.brand_id` : sql<number | null>`null`
  const joinAccounts = (alias: 'd' | 'm') => sql`inner join accounts a on a.platform = ${sql.ref(`${alias}.platform`)} and a.account_id = ${sql.ref(`${alias}.account_id`)}`
  /** The scope as a condition on rows aliased `d` or `m` (a brand scope also needs joinAccounts). */
  const inScope = (alias: 'd' | 'm') => scope.kind === 'accounts'
    ? sql`${sql.ref(`${alias}.platform`)} = ${scope.platform} and ${sql.ref(`${alias}.account_id`)} in (${sql.join(accountIds)})`
    : sql`a.brand_id in (${sql.join(scope.brandIds)})${scope.platforms === undefined ? sql`` : sql` and ${sql.ref(`${alias}.platform`)} in (${sql.join(scope.platforms)})`}`
  const from = (table: 'daily_metrics' | 'account_monthly', alias: 'd' | 'm') =>
    scope.kind === 'brands' ? sql`${sql.table(table)} ${sql.raw(alias)} ${joinAccounts(alias)}` : sql`${sql.table(table)} ${sql.raw(alias)}`

  const metricsOf = (alias: string, summed: boolean) => sql.join(['revenue_micros', ...SUMMED_METRICS]
    .map((metric) => summed ? sql`sum(${sql.ref(`${alias}.${metric}`)}) as ${sql.ref(metric)}` : sql`${sql.ref(`${alias}.${metric}`)} as ${sql.ref(metric)}`))
  const keyColumns = (alias: string) => [sql.ref<string>(`${alias}.platform`).as('platform'), sql.ref<number>(`${alias}.account_id`).as('account_id'),
    sql.ref<number | null>(`${alias}.brand_id`).as('brand_id'), sql.ref<string>(`${alias}.bucket`).as('bucket')]

  if (grouping.bucket === 'day') {
    const last = input.lastDate !== undefined && input.lastDate < period.until ? input.lastDate : period.until
    return db.selectFrom(sql`(select d.platform, d.account_id, ${brandOf} as brand_id, d.date as bucket, d.followers as followers, ${metricsOf('d', false)}
      from ${from('daily_metrics', 'd')} where ${inScope('d')} and d.date >= ${period.since} and d.date <= ${last})`.as('x'))
      .select([...keyColumns('x'), sql.ref<number | null>('x.followers').as('followers'), sql<string | null>`null`.as('followers_date'),
        ...['revenue_micros', ...SUMMED_METRICS].map((metric) => sql.ref<number | null>(`x.${metric}`).as(metric))])
      .as('l')
  }

  const { months, head, tail } = splitPeriod(period)
  const bucketOfMonth = grouping.bucket === 'month' ? monthOf(dialect, sql`m.month`) : sql<string>`${sql.lit('')}`
  const bucketOfDay = grouping.bucket === 'month' ? monthOf(dialect, sql`d.date`) : sql<string>`${sql.lit('')}`
  const wholeMonths = sql`select m.platform, m.account_id, ${brandOf} as brand_id, ${bucketOfMonth} as bucket, m.followers_date as followers_date, ${metricsOf('m', false)}
    from ${from('account_monthly', 'm')} where ${inScope('m')} and m.month >= ${months.from} and m.month <= ${months.to}`
  const edgeDays = sql`select d.platform, d.account_id, ${brandOf} as brand_id, ${bucketOfDay} as bucket,
      max(case when d.followers is not null then d.date end) as followers_date, ${metricsOf('d', true)}
    from ${from('daily_metrics', 'd')} where ${inScope('d')}
      and ((d.date >= ${head.from} and d.date <= ${head.to}) or (d.date >= ${tail.from} and d.date <= ${tail.to}))
    group by d.platform, d.account_id${scope.kind === 'brands' ? sql`, a.brand_id` : sql``}${grouping.bucket === 'month' ? sql`, ${bucketOfDay}` : sql``}`
  return db.selectFrom(sql`(${wholeMonths} union all ${edgeDays})`.as('p'))
    .select([...keyColumns('p'), sql<number | null>`null`.as('followers'), sql<string | null>`max(p.followers_date)`.as('followers_date'),
      ...['revenue_micros', ...SUMMED_METRICS].map((metric) => sql<number | null>`sum(${sql.ref(`p.${metric}`)})`.as(metric))])
    .groupBy([sql.ref('p.platform'), sql.ref('p.account_id'), sql.ref('p.brand_id'), sql.ref('p.bucket')])
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

/** The same, through the store's heavy-read lane (src/storage/heavy-reads.ts): the compiled SQL runs there. */
export async function heavyGroupRows (store: Store, query: GroupedQuery): Promise<GroupRow[]> {
  const { sql: text, parameters } = query.compile()
  return await store.heavy.rows({ sql: text, parameters, arrays: false }) as GroupRow[]
}
