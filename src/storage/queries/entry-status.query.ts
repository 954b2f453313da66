import { sql, type CompiledQuery, type Kysely } from 'kysely'
import type { Grouping } from '../../domain/analytics.js'
import { REPORTED_METRICS } from '../../domain/metric-catalog.js'
import { PLATFORM_METRICS, type PlatformMetric } from '../../domain/metrics.js'
import type { Scope } from '../../domain/scope.js'
import type { Dialect } from '../db.js'
import type { Database } from '../database.js'
import { platformRankOfRow } from './sql-helpers.js'
import { accountsInScope, daysApart, earlierDate, laterDate, typed } from './status-sql.js'

/**
 * The completeness of report entries (/analytics/?include=status, docs/api-reference.md
 * "Completeness"), per time window × the report's grouping keys, in three levels:
 *
 * 1. members: every account of the scope whose coverage (account_coverage) meets the window,
 *    with its group keys and how many days of the window its coverage spans;
 * 2. per member: its rows in the window, and how many of them reported each metric (count of
 *    non-null values — a platform without the metric never has one);
 * 3. per window × group: members (accounts expected), members with a row (accounts reported),
 *    covered and reported account-days, the metric counts, and per metric the reported
 *    account-days of the platforms that have it.
 *
 * Windows are the report's time buckets inside the period: the page's days (daily), the months
 * (monthly) or the period (agg); a daily page also restricts the groups to its own. The work is
 * the scope's account-days in the windows, read through the primary key.
 */

export interface StatusWindow {
  /** The report's bucket: a date, a month (`YYYY-MM`), or '' for the whole period. */
  bucket: string
  from: string
  to: string
}

export interface EntryStatusQueryInput {
  dialect: Dialect
  scope: Scope
  grouping: Omit<Grouping, 'bucket'>
  windows: readonly StatusWindow[]
  /** Only these groups (brand or account ids): a daily page's. */
  groupIds?: readonly number[] | undefined
}

/** Per metric: `r_<metric>` rows reporting it, `e_<metric>` reported rows whose platform has it. */
export type StatusCountRow = {
  bucket: string
  group_id: number
  platform_rank: number
  accounts_expected: number
  accounts_reported: number
  account_days_expected: number
  account_days_reported: number
} & Record<string, number>

const PLATFORM_METRIC_SET = new Set<string>(Object.keys(PLATFORM_METRICS))

export function buildEntryStatusQuery (db: Kysely<Database>, input: EntryStatusQueryInput): CompiledQuery<StatusCountRow> {
  const { dialect, scope, grouping, windows, groupIds } = input
  const values = windows.map((window) => sql`(${typed(dialect, window.bucket, 'text')}, ${typed(dialect, window.from, 'date')}, ${typed(dialect, window.to, 'date')})`)
  const groupId = grouping.by === 'brand' ? sql`a.brand_id` : grouping.by === 'account' ? sql`a.account_id` : sql`0`
  const platformRank = grouping.byPlatform ? platformRankOfRow(sql`a.platform`) : sql`0`
  const onlyGroups = groupIds === undefined || grouping.by === 'none' ? sql`` : sql` and ${groupId} in (${sql.join([...groupIds])})`
  const covered = sql`${daysApart(dialect, laterDate(dialect, sql`w.day_from`, sql`c.first_date`), earlierDate(dialect, sql`w.day_to`, sql`c.last_date`))} + 1`

  const counted = REPORTED_METRICS.map((metric) => sql`count(${sql.ref(`d.${metric === 'revenue' ? 'revenue_micros' : metric}`)}) as ${sql.ref(`r_${metric}`)}`)
  const summed = REPORTED_METRICS.map((metric) => sql`sum(${sql.ref(`p.r_${metric}`)}) as ${sql.ref(`r_${metric}`)}`)
  const applicable = REPORTED_METRICS.map((metric) => {
    if (!PLATFORM_METRIC_SET.has(metric)) return sql`sum(p.days) as ${sql.ref(`e_${metric}`)}`
    const platforms = PLATFORM_METRICS[metric as PlatformMetric].map((code) => sql.lit(code))
    return sql`sum(case when p.platform in (${sql.join(platforms)}) then p.days else 0 end) as ${sql.ref(`e_${metric}`)}`
  })

  return sql<StatusCountRow>`with w (bucket, day_from, day_to) as (values ${sql.join(values)}),
    m as (
      select w.bucket, ${groupId} as group_id, ${platformRank} as platform_rank, a.platform, a.account_id, w.day_from, w.day_to, ${covered} as covered
      from w cross join accounts a
      inner join account_coverage c on c.platform = a.platform and c.account_id = a.account_id
      where ${accountsInScope(scope)}${onlyGroups} and c.first_date <= w.day_to and c.last_date >= w.day_from
    ),
    p as (
      select m.bucket, m.group_id, m.platform_rank, m.platform, m.covered, count(d.date) as days, ${sql.join(counted)}
      from m left join daily_metrics d on d.platform = m.platform and d.account_id = m.account_id and d.date >= m.day_from and d.date <= m.day_to
      group by m.bucket, m.group_id, m.platform_rank, m.platform, m.account_id, m.covered
    )
    select p.bucket, p.group_id, p.platform_rank,
      count(*) as accounts_expected,
      sum(case when p.days > 0 then 1 else 0 end) as accounts_reported,
      sum(p.covered) as account_days_expected,
      sum(p.days) as account_days_reported,
      ${sql.join(summed)}, ${sql.join(applicable)}
    from p
    group by p.bucket, p.group_id, p.platform_rank`.compile(db)
}
