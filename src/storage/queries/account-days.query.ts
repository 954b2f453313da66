import { sql, type CompiledQuery, type Kysely } from 'kysely'
import type { Grouping } from '../../domain/analytics.js'
import type { Scope } from '../../domain/scope.js'
import type { Dialect } from '../db.js'
import type { Database } from '../database.js'
import { platformRankOfRow } from './sql-helpers.js'
import { accountsInScope, typed } from './status-sql.js'

/**
 * What the gap rules (src/domain/gaps/) are given, for the accounts of a report's scope whose
 * coverage meets [from, to]: each account with its group keys, its coverage, and for each stock
 * its last value reported before `from`; then the accounts' rows in [from, to], only the columns
 * asked for. Two statements, both through the primary keys; the work is the scope's account-days
 * in the window (at most the 1096-day period).
 */

export interface AccountDaysQueryInput {
  dialect: Dialect
  scope: Scope
  grouping: Omit<Grouping, 'bucket'>
  /** Only these groups (brand or account ids): a daily page's. */
  groupIds?: readonly number[] | undefined
  from: string
  to: string
}

export type AccountRow = {
  platform: string
  account_id: number
  group_id: number
  platform_rank: number
  first_date: string
  last_date: string
} & Record<string, string | number | null>

export type DayRow = {
  platform: string
  account_id: number
  date: string
} & Record<string, number | null>

/** The daily_metrics column of a catalogue metric. */
export function columnOf (metric: string): string {
  return metric === 'revenue' ? 'revenue_micros' : metric
}

function scopeCondition (input: AccountDaysQueryInput) {
  const { scope, grouping, groupIds } = input
  const groupId = grouping.by === 'brand' ? sql`a.brand_id` : grouping.by === 'account' ? sql`a.account_id` : sql`0`
  const onlyGroups = groupIds === undefined || grouping.by === 'none' ? sql`` : sql` and ${groupId} in (${sql.join([...groupIds])})`
  return { groupId, condition: sql`${accountsInScope(scope)}${onlyGroups}` }
}

/** The accounts, their group keys and coverage, and per stock `<stock>` and `<stock>_date`: its last report before `from`. */
export function buildAccountsQuery (db: Kysely<Database>, input: AccountDaysQueryInput, stocks: readonly string[]): CompiledQuery<AccountRow> {
  const { dialect, grouping, from, to } = input
  const { groupId, condition } = scopeCondition(input)
  const platformRank = grouping.byPlatform ? platformRankOfRow(sql`a.platform`) : sql`0`
  const before = stocks.flatMap((stock) => {
    const column = sql.ref(`p.${columnOf(stock)}`)
    const last = (what: unknown) => sql`(select ${what} from daily_metrics p where p.platform = a.platform and p.account_id = a.account_id and p.date < ${typed(dialect, from, 'date')} and ${column} is not null order by p.date desc limit 1)`
    return [sql`${last(column)} as ${sql.ref(stock)}`, sql`${last(sql`p.date`)} as ${sql.ref(`${stock}_date`)}`]
  })
  return sql<AccountRow>`select a.platform, a.account_id, ${groupId} as group_id, ${platformRank} as platform_rank, c.first_date, c.last_date${before.length === 0 ? sql`` : sql`, ${sql.join(before)}`}
    from accounts a inner join account_coverage c on c.platform = a.platform and c.account_id = a.account_id
    where ${condition} and c.first_date <= ${typed(dialect, to, 'date')} and c.last_date >= ${typed(dialect, from, 'date')}
    order by a.platform, a.account_id`.compile(db)
}

/** The accounts' rows in [from, to]: platform, account_id, date and the metrics asked for (by catalogue name). */
export function buildDayRowsQuery (db: Kysely<Database>, input: AccountDaysQueryInput, metrics: readonly string[]): CompiledQuery<DayRow> {
  const { dialect, from, to } = input
  const { condition } = scopeCondition(input)
  const columns = metrics.map((metric) => sql`d.${sql.ref(columnOf(metric))} as ${sql.ref(metric)}`)
  return sql<DayRow>`select d.platform, d.account_id, d.date, ${sql.join(columns)}
    from accounts a inner join daily_metrics d on d.platform = a.platform and d.account_id = a.account_id
    where ${condition} and d.date >= ${typed(dialect, from, 'date')} and d.date <= ${typed(dialect, to, 'date')}`.compile(db)
}

/** The last day any account of the scope has a row for (`last`, null when none). */
export function buildDataThroughQuery (db: Kysely<Database>, scope: Scope): CompiledQuery<{ last: string | null }> {
  return sql<{ last: string | null }>`select max(c.last_date) as last
    from accounts a inner join account_coverage c on c.platform = a.platform and c.account_id = a.account_id
    where ${accountsInScope(scope)}`.compile(db)
}
