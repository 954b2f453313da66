import { sql, type CompiledQuery, type Kysely } from 'kysely'
import type { AccountPosition, AccountStatus, DateRange } from '../../domain/data-status.js'
import type { PlatformCode } from '../../domain/platforms.js'
import type { Scope } from '../../domain/scope.js'
import type { Dialect } from '../db.js'
import type { Database } from '../database.js'
import { platformRankOfRow } from './sql-helpers.js'
import { accountsInScope, daysApart, typed } from './status-sql.js'

/**
 * GET /data-status in three reads (docs/api-reference.md "Data status"):
 *
 * 1. a page of the scope's accounts in canonical order (brand_id, platform, account_id), keyset
 *    after the cursor's account, each with its coverage (account_coverage: first and last day
 *    with a row, synced_at);
 * 2. the page's account-months inside the period with their row counts (account_monthly, kept
 *    by the import): a month whose count equals its days inside the account's coverage has no
 *    gap and is not read further;
 * 3. for the months that do have gaps (or no row at all), the gaps — "gaps and islands" with
 *    window functions: each row of the window with the day before and after it (lag/lead over the
 *    account's days in it), keeping only the rows that border a gap and each window's last row.
 *    So both the rows read and the rows carried out of the store follow the gaps, not the days;
 *    a window with no row at all returns nothing (all of it is missing).
 */

/** An account of the page with its coverage: the whole-history part of its status. */
export type CoverageRow = Pick<AccountStatus, 'brand_id' | 'platform' | 'account_id' | 'account_name' | 'first_date' | 'last_date' | 'synced_at'>

/** The scope's accounts after `after`, in canonical order, at most `limit`. */
export function buildAccountPageQuery (db: Kysely<Database>, scope: Scope, after: AccountPosition | undefined, limit: number): CompiledQuery<CoverageRow> {
  const rank = platformRankOfRow(sql`a.platform`)
  const continued = after === undefined
    ? sql``
    : sql` and (a.brand_id > ${after.brandId} or (a.brand_id = ${after.brandId} and (${rank} > ${after.platformRank}
        or (${rank} = ${after.platformRank} and a.account_id > ${after.accountId}))))`
  return sql<CoverageRow>`select a.brand_id, a.platform, a.account_id, a.account_name, c.first_date, c.last_date, c.synced_at
    from accounts a left join account_coverage c on c.platform = a.platform and c.account_id = a.account_id
    where ${accountsInScope(scope)}${continued}
    order by a.brand_id, ${rank}, a.account_id
    limit ${limit}`.compile(db)
}

/** An account and a run of days to look at: its span of the period, or a month of it. */
export interface AccountWindow {
  platform: PlatformCode
  account_id: number
  window: DateRange
}

/** An account-month with rows (`month`: its first day) and how many days of it have one. */
export interface AccountMonthRow {
  platform: PlatformCode
  account_id: number
  month: string
  rows_count: number
}

/** The account-months of each account's window (from the month of its first day). */
export function buildAccountMonthsQuery (db: Kysely<Database>, dialect: Dialect, windows: readonly AccountWindow[]): CompiledQuery<AccountMonthRow> {
  const values = windows.map(({ platform, account_id: accountId, window }) =>
    sql`(${typed(dialect, platform, 'text')}, ${typed(dialect, accountId, 'bigint')}, ${typed(dialect, `${window.since.slice(0, 7)}-01`, 'date')}, ${typed(dialect, window.until, 'date')})`)
  return sql<AccountMonthRow>`with s (platform, account_id, lo, hi) as (values ${sql.join(values)})
    select m.platform, m.account_id, m.month, m.rows_count
    from s inner join account_monthly m on m.platform = s.platform and m.account_id = s.account_id and m.month >= s.lo and m.month <= s.hi`.compile(db)
}

/** A row bordering a gap (or a window's last row): its window, its day and its neighbours. */
export interface GapRow {
  platform: PlatformCode
  account_id: number
  /** The first day of the window the row is in. */
  lo: string
  day: string
  /** The previous day with a row in the window; null for the first. */
  prev: string | null
  /** The next day with a row in the window; null for the last. */
  next: string | null
}

export function buildGapsQuery (db: Kysely<Database>, dialect: Dialect, windows: readonly AccountWindow[]): CompiledQuery<GapRow> {
  const values = windows.map(({ platform, account_id: accountId, window }) =>
    sql`(${typed(dialect, platform, 'text')}, ${typed(dialect, accountId, 'bigint')}, ${typed(dialect, window.since, 'date')}, ${typed(dialect, window.until, 'date')})`)
  const over = sql`over (partition by s.platform, s.account_id, s.lo order by d.date)`
  return sql<GapRow>`with s (platform, account_id, lo, hi) as (values ${sql.join(values)})
    select w.platform, w.account_id, w.lo, w.day, w.prev, w.next from (
      select s.platform, s.account_id, s.lo, d.date as day,
        lag(d.date) ${over} as prev,
        lead(d.date) ${over} as next
      from s inner join daily_metrics d on d.platform = s.platform and d.account_id = s.account_id and d.date >= s.lo and d.date <= s.hi
    ) w
    where w.next is null
      or (w.prev is null and w.day > w.lo)
      or (w.prev is not null and ${daysApart(dialect, sql`w.prev`, sql`w.day`)} > 1)`.compile(db)
}
