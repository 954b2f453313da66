import type SqliteDatabase from 'better-sqlite3'
import type pg from 'pg'
import { lastDayOfMonth } from '../../domain/dates.js'
import { METRIC_LIST, ROLLUP_METRICS, rawSums } from './columns.js'
import { BRAND_DAY_COLUMNS, groupRowOf, type BrandDayRenderer } from './group-rows.js'
import { splitAccountKey, type TouchedKeys } from './touched.js'

/**
 * Brings the read model (brand_daily, brand_monthly, account_monthly) up to date with the raw rows
 * for what an import touched, inside the import's own transaction: the touched account-months and
 * the brand-months they belong to (an account that moved brands counts every month it has, for both
 * brands) are recomputed from the raw rows — deleted, then summed again. Recomputing rather than
 * adding keeps it exact whatever the import replaced, and it reads only the touched months.
 * Every brand-day summed again gets its daily entry rendered (brand_daily.entry_json) by the
 * renderer the caller supplies. Both dialects side by side: the SQL differs in how each planner is
 * kept on the keys (SQLite: CROSS JOIN fixes the join order; PostgreSQL: LATERAL per key, no
 * memoize, no JIT).
 */

interface AccountMonth { platform: string, accountId: number, month: string, lastDay: string }

const MONTH_OF_DAY = (month: string): string => lastDayOfMonth(month.slice(0, 7))

/** Every rollup metric except followers, whose rule differs per table. */
const WITHOUT_FOLLOWERS = ROLLUP_METRICS.filter((metric) => metric !== 'followers')
const RAW_SUMS_WITHOUT_FOLLOWERS = rawSums(WITHOUT_FOLLOWERS)
/** A brand's day: every account-day summed, followers included. */
const RAW_SUMS = rawSums()
/** A brand's month from its days, followers aside (Σ of each account's last value in the month). */
const BRAND_MONTH_SUMS = ROLLUP_METRICS.map((metric) => metric === 'followers'
  ? '(select sum(m.followers) from accounts a join account_monthly m on m.platform = a.platform and m.account_id = a.account_id and m.month = t.month where a.brand_id = t.brand_id)'
  : `sum(b.${metric})`).join(', ')

function touchedAccountMonths (touched: TouchedKeys): AccountMonth[] {
  const rows: AccountMonth[] = []
  for (const [key, months] of touched.months) {
    const { platform, accountId } = splitAccountKey(key)
    for (const month of months) rows.push({ platform, accountId, month, lastDay: MONTH_OF_DAY(month) })
  }
  return rows
}

// ------------------------------------------------------------------------------------------------
// SQLite (better-sqlite3, synchronous, in the import's transaction)

export function refreshSqliteReadModel (sqlite: SqliteDatabase.Database, touched: TouchedKeys, render: BrandDayRenderer): void {
  if (touched.empty) return
  sqlite.exec(`create temp table if not exists touched_am (platform text not null, account_id integer not null, month text not null, last_day text not null,
    primary key (platform, account_id, month)) without rowid`)
  sqlite.exec(`create temp table if not exists touched_bm (brand_id integer not null, month text not null, last_day text not null,
    primary key (brand_id, month)) without rowid`)
  sqlite.exec('delete from touched_am; delete from touched_bm')

  const addAccountMonth = sqlite.prepare('insert or ignore into touched_am values (?, ?, ?, ?)')
  for (const row of touchedAccountMonths(touched)) addAccountMonth.run(row.platform, row.accountId, row.month, row.lastDay)
  const addBrandMonth = sqlite.prepare('insert or ignore into touched_bm values (?, ?, ?)')
  if (touched.movedFrom.size > 0) {
    // Every month a moved account has counts again: for the brand it joined and the one it left.
    const monthsOf = sqlite.prepare('select month from account_monthly where platform = ? and account_id = ?').pluck()
    for (const [key, oldBrand] of touched.movedFrom) {
      const { platform, accountId } = splitAccountKey(key)
      for (const month of monthsOf.all(platform, accountId) as string[]) {
        addAccountMonth.run(platform, accountId, month, MONTH_OF_DAY(month))
        addBrandMonth.run(oldBrand, month, MONTH_OF_DAY(month))
      }
    }
  }
  sqlite.exec(`insert or ignore into touched_bm select a.brand_id, t.month, t.last_day
    from touched_am t join accounts a on a.platform = t.platform and a.account_id = t.account_id`)

  sqlite.exec('delete from account_monthly where (platform, account_id, month) in (select platform, account_id, month from touched_am)')
  // followers: the bare column beside the one max() is read from the row holding it (the last day
  // that reported followers); the month's other days are summed.
  sqlite.exec(`insert into account_monthly (platform, account_id, month, followers_date, followers, ${WITHOUT_FOLLOWERS.join(', ')})
    select t.platform, t.account_id, t.month, max(case when d.followers is not null then d.date end), d.followers, ${RAW_SUMS_WITHOUT_FOLLOWERS}
    from touched_am t cross join daily_metrics d
    where d.platform = t.platform and d.account_id = t.account_id and d.date between t.month and t.last_day
    group by t.platform, t.account_id, t.month`)

  const brandMonths = sqlite.prepare('select brand_id, month, last_day from touched_bm').raw().all() as Array<[number, string, string]>
  const deleteBrandDays = sqlite.prepare('delete from brand_daily where brand_id = ? and date between ? and ?')
  for (const row of brandMonths) deleteBrandDays.run(...row)
  sqlite.exec(`insert into brand_daily (brand_id, date, ${METRIC_LIST})
    select t.brand_id, d.date, ${RAW_SUMS}
    from touched_bm t cross join accounts a cross join daily_metrics d
    where a.brand_id = t.brand_id and d.platform = a.platform and d.account_id = a.account_id and d.date between t.month and t.last_day
    group by t.brand_id, d.date`)
  const daysOf = sqlite.prepare(`select ${BRAND_DAY_COLUMNS} from brand_daily b where b.brand_id = ? and b.date between ? and ?`).raw()
  const setEntry = sqlite.prepare('update brand_daily set entry_json = ? where brand_id = ? and date = ?')
  for (const brandMonth of brandMonths) {
    for (const day of daysOf.all(...brandMonth) as unknown[][]) setEntry.run(render(groupRowOf(day)), day[1], day[0])
  }

  sqlite.exec('delete from brand_monthly where (brand_id, month) in (select brand_id, month from touched_bm)')
  sqlite.exec(`insert into brand_monthly (brand_id, month, ${METRIC_LIST})
    select t.brand_id, t.month, ${BRAND_MONTH_SUMS}
    from touched_bm t cross join brand_daily b
    where b.brand_id = t.brand_id and b.date between t.month and t.last_day
    group by t.brand_id, t.month`)
}

// ------------------------------------------------------------------------------------------------
// PostgreSQL (one client, in the import's transaction)

export async function refreshPostgresReadModel (client: pg.PoolClient, touched: TouchedKeys, render: BrandDayRenderer): Promise<void> {
  if (touched.empty) return
  // The refresh joins a few thousand keys to their rows: keep the planner on per-key index scans.
  await client.query('set local enable_memoize = off; set local jit = off; set local work_mem = \'64MB\'')
  await client.query(`create temp table touched_am (platform text not null, account_id bigint not null, month date not null, last_day date not null,
    primary key (platform, account_id, month)) on commit drop`)
  await client.query(`create temp table touched_bm (brand_id bigint not null, month date not null, last_day date not null,
    primary key (brand_id, month)) on commit drop`)

  const accountMonths = touchedAccountMonths(touched)
  await client.query('insert into touched_am select * from unnest($1::text[], $2::bigint[], $3::date[], $4::date[]) on conflict do nothing', [
    accountMonths.map((row) => row.platform), accountMonths.map((row) => row.accountId),
    accountMonths.map((row) => row.month), accountMonths.map((row) => row.lastDay),
  ])
  if (touched.movedFrom.size > 0) {
    const moved = [...touched.movedFrom].map(([key, oldBrand]) => ({ ...splitAccountKey(key), oldBrand }))
    // Every month a moved account has counts again: for the brand it joined and the one it left.
    await client.query(`insert into touched_am
      select m.platform, m.account_id, m.month, (m.month + interval '1 month' - interval '1 day')::date
      from unnest($1::text[], $2::bigint[]) as v (platform, account_id)
      join account_monthly m on m.platform = v.platform and m.account_id = v.account_id
      on conflict do nothing`, [moved.map((row) => row.platform), moved.map((row) => row.accountId)])
    await client.query(`insert into touched_bm
      select v.brand_id, m.month, (m.month + interval '1 month' - interval '1 day')::date
      from unnest($1::text[], $2::bigint[], $3::bigint[]) as v (platform, account_id, brand_id)
      join account_monthly m on m.platform = v.platform and m.account_id = v.account_id
      on conflict do nothing`, [moved.map((row) => row.platform), moved.map((row) => row.accountId), moved.map((row) => row.oldBrand)])
  }
  await client.query(`insert into touched_bm select a.brand_id, t.month, t.last_day
    from touched_am t join accounts a on a.platform = t.platform and a.account_id = t.account_id on conflict do nothing`)
  await client.query('analyze touched_am; analyze touched_bm')

  await client.query('delete from account_monthly m using touched_am t where m.platform = t.platform and m.account_id = t.account_id and m.month = t.month')
  await client.query(`insert into account_monthly (platform, account_id, month, followers_date, followers, ${WITHOUT_FOLLOWERS.join(', ')})
    select t.platform, t.account_id, t.month, s.* from touched_am t cross join lateral (
      select max(case when d.followers is not null then d.date end),
        (max(case when d.followers is not null then array[d.date - date '2000-01-01', d.followers] end))[2],
        ${RAW_SUMS_WITHOUT_FOLLOWERS}
      from daily_metrics d where d.platform = t.platform and d.account_id = t.account_id and d.date between t.month and t.last_day
      having count(*) > 0) s`)

  await client.query('delete from brand_daily b using touched_bm t where b.brand_id = t.brand_id and b.date between t.month and t.last_day')
  await client.query(`insert into brand_daily (brand_id, date, ${METRIC_LIST})
    select t.brand_id, s.* from touched_bm t cross join lateral (
      select d.date, ${RAW_SUMS}
      from accounts a join daily_metrics d on d.platform = a.platform and d.account_id = a.account_id and d.date between t.month and t.last_day
      where a.brand_id = t.brand_id group by d.date) s`)
  await renderPostgresBrandDays(client, render)

  await client.query('delete from brand_monthly b using touched_bm t where b.brand_id = t.brand_id and b.month = t.month')
  await client.query(`insert into brand_monthly (brand_id, month, ${METRIC_LIST})
    select t.brand_id, t.month, ${BRAND_MONTH_SUMS}
    from touched_bm t join brand_daily b on b.brand_id = t.brand_id and b.date between t.month and t.last_day
    group by t.brand_id, t.month`)
}

/** Brand-months rendered per round trip: about 15,000 brand-days, a few MB either way. */
const RENDER_BATCH_MONTHS = 500

/** Renders the entry of every brand-day of touched_bm, a batch of brand-months at a time. */
async function renderPostgresBrandDays (client: pg.PoolClient, render: BrandDayRenderer): Promise<void> {
  const { rows: brandMonths } = await client.query<[string, string, string]>({ text: 'select brand_id, month, last_day from touched_bm order by brand_id, month', rowMode: 'array' })
  for (let start = 0; start < brandMonths.length; start += RENDER_BATCH_MONTHS) {
    const batch = brandMonths.slice(start, start + RENDER_BATCH_MONTHS)
    const { rows: days } = await client.query<unknown[]>({
      text: `select ${BRAND_DAY_COLUMNS} from unnest($1::bigint[], $2::date[], $3::date[]) as t (brand_id, month, last_day)
        join brand_daily b on b.brand_id = t.brand_id and b.date between t.month and t.last_day`,
      values: [batch.map((row) => row[0]), batch.map((row) => row[1]), batch.map((row) => row[2])],
      rowMode: 'array',
    })
    await client.query(`update brand_daily b set entry_json = v.entry_json
      from unnest($1::bigint[], $2::date[], $3::text[]) as v (brand_id, date, entry_json)
      where b.brand_id = v.brand_id and b.date = v.date`, [days.map((day) => day[1]), days.map((day) => day[0]), days.map((day) => render(groupRowOf(day)))])
  }
}
