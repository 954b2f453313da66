import type SqliteDatabase from 'better-sqlite3'
import type pg from 'pg'
import { METRIC_LIST, ROLLUP_METRICS, rawContribution, rawSums } from './columns.js'
import { copyText, copyValue } from '../copy-text.js'
import { groupRowOf, type BrandDayBatchRenderer, type BrandDayRenderer } from './group-rows.js'
import { runningRefreshStatements } from './running.js'

/**
 * Brings the read model (brand_daily, brand_monthly, account_monthly) up to date with the raw rows
 * for what an import changed, inside the import's own transaction: the account-months it changed
 * and the brand-months they belong to (an account that moved brands counts every month it has, for
 * both brands) are recomputed from the raw rows — deleted, then summed again. Recomputing rather
 * than adding keeps it exact whatever the import replaced, and it reads only those months.
 * Every brand-day summed again gets its daily entry rendered (brand_daily.entry_json), and every
 * brand-month its whole-month entry (brand_monthly.entry_json), by the renderer the caller supplies. Both dialects side by side: the SQL differs in how each planner is
 * kept on the keys (SQLite: CROSS JOIN fixes the join order; PostgreSQL: LATERAL per key, no
 * memoize, no JIT).
 *
 * What to refresh is given as SQL over the store (TouchedSource), never as keys held in memory:
 * the import passes its changed keys (src/storage/changes/), a rebuild every account-month.
 */

export interface TouchedSource {
  /** A SELECT of (platform, account_id, month): each account-month to sum again, month as its first day (duplicates allowed). */
  accountMonths: string
  /** A SELECT of (platform, account_id, old_brand_id): accounts now in another brand than old_brand_id. */
  moved?: string
}

/** Every rollup metric except followers, whose rule differs per table. */
const WITHOUT_FOLLOWERS = ROLLUP_METRICS.filter((metric) => metric !== 'followers')
const RAW_SUMS_WITHOUT_FOLLOWERS = rawSums(WITHOUT_FOLLOWERS)
/** A brand's day: every account-day summed, followers included. */
const RAW_SUMS = rawSums()
/** A brand's month from its days, followers aside (Σ of each account's last value in the month). */
const BRAND_MONTH_SUMS = ROLLUP_METRICS.map((metric) => metric === 'followers'
  ? '(select sum(m.followers) from accounts a join account_monthly m on m.platform = a.platform and m.account_id = a.account_id and m.month = t.month where a.brand_id = t.brand_id)'
  : `sum(b.${metric})`).join(', ')

/**
 * The last day of the month starting at `month` (`YYYY-MM-01`), in SQLite. December is spelled out:
 * SQLite's date() has no year 10000, so `date('9999-12-01', '+1 month', '-1 day')` is NULL.
 */
function sqliteLastDayOf (month: string): string {
  return `case when substr(${month}, 6, 2) = '12' then substr(${month}, 1, 4) || '-12-31' else date(${month}, '+1 month', '-1 day') end`
}

// ------------------------------------------------------------------------------------------------
// SQLite (better-sqlite3, synchronous, in the import's transaction)

export function refreshSqliteReadModel (sqlite: SqliteDatabase.Database, touched: TouchedSource, render: BrandDayRenderer): void {
  if (!touchSqlite(sqlite, touched)) return
  refreshSqliteAccountMonths(sqlite)
  const brandDays = prepareSqliteBrandDays(sqlite)
  for (const page of sqliteBrandMonthPages(sqlite)) {
    for (const day of brandDays.sum(page)) brandDays.insert(day, render(groupRowOf(day)))
  }
  refreshSqliteBrandMonths(sqlite, render)
}

/**
 * The same, with the brand-days' entries rendered elsewhere (`renderBatch`, the import's rendering
 * thread) a page at a time: a page of brand-months is summed and handed over, the next one summed
 * while it is rendered, and then inserted with its entries. The same rows as refreshSqliteReadModel.
 */
export async function refreshSqliteReadModelRenderingElsewhere (sqlite: SqliteDatabase.Database, touched: TouchedSource, render: BrandDayRenderer,
  renderBatch: BrandDayBatchRenderer): Promise<void> {
  if (!touchSqlite(sqlite, touched)) return
  refreshSqliteAccountMonths(sqlite)
  const brandDays = prepareSqliteBrandDays(sqlite)
  const insertPage = async (page: { days: unknown[][], entries: Promise<string[]> }): Promise<void> => {
    const entries = await page.entries
    page.days.forEach((day, index) => { brandDays.insert(day, entries[index] as string) })
  }
  let rendering: { days: unknown[][], entries: Promise<string[]> } | undefined
  for (const page of sqliteBrandMonthPages(sqlite)) {
    const days = brandDays.sum(page)
    const entries = renderBatch(days)
    // Awaited below, maybe after it failed: not an unhandled rejection meanwhile.
    entries.catch(() => {})
    if (rendering !== undefined) await insertPage(rendering)
    rendering = { days, entries }
  }
  if (rendering !== undefined) await insertPage(rendering)
  refreshSqliteBrandMonths(sqlite, render)
}

/** Fills touched_am and touched_bm; false when the import changed nothing the read model holds. */
function touchSqlite (sqlite: SqliteDatabase.Database, touched: TouchedSource): boolean {
  sqlite.exec(`create temp table if not exists touched_am (platform text not null, account_id integer not null, month text not null, last_day text not null,
    primary key (platform, account_id, month)) without rowid`)
  sqlite.exec(`create temp table if not exists touched_bm (brand_id integer not null, month text not null, last_day text not null,
    primary key (brand_id, month)) without rowid`)
  sqlite.exec('delete from touched_am; delete from touched_bm')

  sqlite.exec(`insert or ignore into touched_am select m.platform, m.account_id, m.month, ${sqliteLastDayOf('m.month')} from (${touched.accountMonths}) m`)
  if (touched.moved !== undefined) {
    // Every month a moved account has counts again: for the brand it joined and the one it left.
    sqlite.exec(`insert or ignore into touched_am select m.platform, m.account_id, m.month, ${sqliteLastDayOf('m.month')}
      from (${touched.moved}) v cross join account_monthly m where m.platform = v.platform and m.account_id = v.account_id`)
    sqlite.exec(`insert or ignore into touched_bm select v.old_brand_id, m.month, ${sqliteLastDayOf('m.month')}
      from (${touched.moved}) v cross join account_monthly m where m.platform = v.platform and m.account_id = v.account_id`)
  }
  if (sqlite.prepare('select exists (select 1 from touched_am) or exists (select 1 from touched_bm)').pluck().get() === 0) return false
  sqlite.exec(`insert or ignore into touched_bm select a.brand_id, t.month, t.last_day
    from touched_am t join accounts a on a.platform = t.platform and a.account_id = t.account_id`)
  return true
}

function refreshSqliteAccountMonths (sqlite: SqliteDatabase.Database): void {
  sqlite.exec('delete from account_monthly where (platform, account_id, month) in (select platform, account_id, month from touched_am)')
  // followers: the bare column beside the one max() is read from the row holding it (the last day
  // that reported followers); the month's other days are summed.
  sqlite.exec(`insert into account_monthly (platform, account_id, month, followers_date, followers, ${WITHOUT_FOLLOWERS.join(', ')})
    select t.platform, t.account_id, t.month, max(case when d.followers is not null then d.date end), d.followers, ${RAW_SUMS_WITHOUT_FOLLOWERS}
    from touched_am t cross join daily_metrics d
    where d.platform = t.platform and d.account_id = t.account_id and d.date between t.month and t.last_day
    group by t.platform, t.account_id, t.month`)
}

/**
 * Each brand-month's days are summed, rendered and inserted once with their entry
 * (brand_daily.entry_json): not inserted, read back and updated, which wrote every row twice.
 */
function prepareSqliteBrandDays (sqlite: SqliteDatabase.Database): {
  /** Deletes the page's brand-days and sums them again: rows in REPORT_COLUMNS order (date, brand, 0, the metrics), as groupRowOf reads them. */
  sum: (page: Array<[number, string, string]>) => unknown[][]
  /** Inserts one summed row with its entry. */
  insert: (day: unknown[], entry: string) => void
} {
  const deleteBrandDays = sqlite.prepare('delete from brand_daily where brand_id = ? and date between ? and ?')
  const sumDays = sqlite.prepare(`select d.date, a.brand_id, 0, ${RAW_SUMS}
    from accounts a cross join daily_metrics d
    where a.brand_id = ? and d.platform = a.platform and d.account_id = a.account_id and d.date between ? and ?
    group by d.date`).raw()
  const insertDay = sqlite.prepare(`insert into brand_daily (date, brand_id, ${METRIC_LIST}, entry_json)
    values (${ROLLUP_METRICS.map(() => '?, ').join('')}?, ?, ?)`)
  const values: unknown[] = []
  return {
    sum: (page) => {
      const days: unknown[][] = []
      for (const brandMonth of page) {
        deleteBrandDays.run(...brandMonth)
        for (const day of sumDays.all(...brandMonth) as unknown[][]) days.push(day)
      }
      return days
    },
    insert: (day, entry) => {
      // The row as selected without its placeholder platform rank (third), then its entry.
      values.length = 0
      values.push(day[0], day[1])
      for (let index = 3; index < day.length; index += 1) values.push(day[index])
      values.push(entry)
      insertDay.run(values)
    },
  }
}

function refreshSqliteBrandMonths (sqlite: SqliteDatabase.Database, render: BrandDayRenderer): void {
  // The brand-months' running totals, from the brand-days just written (running.ts).
  for (const statement of runningRefreshStatements('sqlite')) sqlite.exec(statement)

  sqlite.exec('delete from brand_monthly where (brand_id, month) in (select brand_id, month from touched_bm)')
  sqlite.exec(`insert into brand_monthly (brand_id, month, ${METRIC_LIST})
    select t.brand_id, t.month, ${BRAND_MONTH_SUMS}
    from touched_bm t cross join brand_daily b
    where b.brand_id = t.brand_id and b.date between t.month and t.last_day
    group by t.brand_id, t.month`)
  // Each brand-month summed again gets its whole-month entry rendered (brand_monthly.entry_json).
  const monthOf = sqlite.prepare(`select substr(b.month, 1, 7), b.brand_id, 0, ${ROLLUP_METRICS.map((metric) => `b.${metric}`).join(', ')}
    from brand_monthly b where b.brand_id = ? and b.month = ?`).raw()
  const setMonthEntry = sqlite.prepare('update brand_monthly set entry_json = ? where brand_id = ? and month = ?')
  for (const page of sqliteBrandMonthPages(sqlite)) {
    for (const [brandId, month] of page) {
      const row = monthOf.get(brandId, month) as unknown[] | undefined
      if (row !== undefined) setMonthEntry.run(render(groupRowOf(row)), brandId, month)
    }
  }
}

/** Brand-months read into memory at a time: however many an import touched, a few hundred KB. */
const BRAND_MONTH_PAGE = 200

/**
 * touched_bm a page at a time, in key order (keyset paging: the writes between pages do not touch
 * touched_bm, and better-sqlite3 cannot write while a statement iterates), so memory stays flat
 * whatever the number of brand-months an import touched.
 */
function * sqliteBrandMonthPages (sqlite: SqliteDatabase.Database): Generator<Array<[number, string, string]>> {
  const first = sqlite.prepare('select brand_id, month, last_day from touched_bm order by brand_id, month limit ?').raw()
  const next = sqlite.prepare('select brand_id, month, last_day from touched_bm where (brand_id, month) > (?, ?) order by brand_id, month limit ?').raw()
  let page = first.all(BRAND_MONTH_PAGE) as Array<[number, string, string]>
  while (page.length > 0) {
    yield page
    const last = page[page.length - 1] as [number, string, string]
    page = next.all(last[0], last[1], BRAND_MONTH_PAGE) as Array<[number, string, string]>
  }
}

// ------------------------------------------------------------------------------------------------
// PostgreSQL (one client, in the import's transaction)

export async function refreshPostgresReadModel (client: pg.PoolClient, touched: TouchedSource, render: BrandDayRenderer): Promise<void> {
  // The refresh joins a few thousand keys to their rows: keep the planner on per-key index scans.
  await client.query('set local enable_memoize = off; set local jit = off; set local work_mem = \'64MB\'')
  await client.query(`create temp table touched_am (platform text not null, account_id bigint not null, month date not null, last_day date not null,
    primary key (platform, account_id, month)) on commit drop`)
  await client.query(`create temp table touched_bm (brand_id bigint not null, month date not null, last_day date not null,
    primary key (brand_id, month)) on commit drop`)

  await client.query(`insert into touched_am select distinct m.platform, m.account_id, m.month, (m.month + interval '1 month' - interval '1 day')::date
    from (${touched.accountMonths}) m on conflict do nothing`)
  if (touched.moved !== undefined) {
    // Every month a moved account has counts again: for the brand it joined and the one it left.
    await client.query(`insert into touched_am
      select m.platform, m.account_id, m.month, (m.month + interval '1 month' - interval '1 day')::date
      from (${touched.moved}) v join account_monthly m on m.platform = v.platform and m.account_id = v.account_id
      on conflict do nothing`)
    await client.query(`insert into touched_bm
      select v.old_brand_id, m.month, (m.month + interval '1 month' - interval '1 day')::date
      from (${touched.moved}) v join account_monthly m on m.platform = v.platform and m.account_id = v.account_id
      on conflict do nothing`)
  }
  const { rows } = await client.query<{ any: boolean }>('select exists (select 1 from touched_am) or exists (select 1 from touched_bm) as any')
  if (rows[0]?.any !== true) return
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
  await writePostgresBrandDays(client, render)
  // The brand-months' running totals, from the brand-days just written (running.ts).
  for (const statement of runningRefreshStatements('postgres')) await client.query(statement)

  await client.query('delete from brand_monthly b using touched_bm t where b.brand_id = t.brand_id and b.month = t.month')
  await client.query(`insert into brand_monthly (brand_id, month, ${METRIC_LIST})
    select t.brand_id, t.month, ${BRAND_MONTH_SUMS}
    from touched_bm t join brand_daily b on b.brand_id = t.brand_id and b.date between t.month and t.last_day
    group by t.brand_id, t.month`)
  await renderPostgresBrandMonths(client, render)
}

/**
 * Renders the whole-month entry of every brand-month of touched_bm (brand_monthly.entry_json), a
 * page of brand-months (BRAND_MONTH_PAGE) per round trip, read by keyset so that memory stays flat
 * whatever the number of brand-months the import touched.
 */
async function renderPostgresBrandMonths (client: pg.PoolClient, render: BrandDayRenderer): Promise<void> {
  let after: [string, string] | undefined
  for (;;) {
    const { rows: batch } = await client.query<[string, string]>({
      text: `select brand_id, month from touched_bm ${after === undefined ? '' : 'where (brand_id, month) > ($2::bigint, $3::date)'} order by brand_id, month limit $1`,
      values: after === undefined ? [BRAND_MONTH_PAGE] : [BRAND_MONTH_PAGE, ...after],
      rowMode: 'array',
    })
    if (batch.length === 0) return
    const last = batch[batch.length - 1] as [string, string]
    after = [last[0], last[1]]
    const { rows: months } = await client.query<unknown[]>({
      text: `select to_char(b.month, 'YYYY-MM'), b.brand_id, 0, ${ROLLUP_METRICS.map((metric) => `b.${metric}`).join(', ')}
        from unnest($1::bigint[], $2::date[]) as t (brand_id, month) join brand_monthly b on b.brand_id = t.brand_id and b.month = t.month`,
      values: [batch.map((row) => row[0]), batch.map((row) => row[1])],
      rowMode: 'array',
    })
    await client.query(`update brand_monthly b set entry_json = v.entry_json
      from unnest($1::bigint[], $2::text[], $3::text[]) as v (brand_id, month, entry_json)
      where b.brand_id = v.brand_id and b.month = (v.month || '-01')::date`, [months.map((row) => row[1]), months.map((row) => row[0]), months.map((row) => render(groupRowOf(row)))])
  }
}

/** A brand-day's sums from its account-days (raw rows `d`), each as the bigint its brand_daily column is, named m0, m1, … */
const BRAND_DAY_SUMS = ROLLUP_METRICS.map((metric, index) => `(${metric === 'rows_count' ? 'count(*)' : `sum(${rawContribution(metric)})`})::bigint as m${index}`).join(', ')
const BRAND_DAY_SUMS_SELECTED = ROLLUP_METRICS.map((_, index) => `s.m${index}`).join(', ')

/** brand_daily's columns as the rendered brand-days are copied into it. */
const BRAND_DAY_COPY_COLUMNS = `brand_id, date, ${METRIC_LIST}, entry_json`

/**
 * Sums every brand-day of touched_bm from the raw rows and writes it once, with its rendered entry
 * (brand_daily.entry_json): a page of brand-months (BRAND_MONTH_PAGE, about 6,000 brand-days, a
 * few MB) per round trip, so that memory stays flat whatever the number of brand-months the import
 * touched. The sums are read, rendered here and copied in (COPY: a tenth of the server time of
 * inserting them from JSON) — not inserted, read back and updated, which wrote every row twice.
 * The pages are numbered first, so the next page's sums are asked for before this page is
 * rendered: the server sums while the process renders.
 */
async function writePostgresBrandDays (client: pg.PoolClient, render: BrandDayRenderer): Promise<void> {
  await client.query(`create temp table touched_bm_pages on commit drop as
    select (row_number() over (order by brand_id, month) - 1) / ${BRAND_MONTH_PAGE} as page, brand_id, month, last_day from touched_bm`)
  await client.query('create index on touched_bm_pages (page)')
  const { rows } = await client.query<{ pages: number | null }>('select max(page) + 1 as pages from touched_bm_pages')
  const pages = Number(rows[0]?.pages ?? 0)
  // In REPORT_COLUMNS order (date, brand, 0, the metrics), as groupRowOf reads a brand_daily row.
  const sumsOf = async (page: number): Promise<unknown[][]> => (await client.query<unknown[]>({
    text: `select s.date, t.brand_id, 0, ${BRAND_DAY_SUMS_SELECTED} from touched_bm_pages t
      cross join lateral (select d.date, ${BRAND_DAY_SUMS}
        from accounts a join daily_metrics d on d.platform = a.platform and d.account_id = a.account_id and d.date between t.month and t.last_day
        where a.brand_id = t.brand_id group by d.date) s
      where t.page = $1`,
    values: [page],
    rowMode: 'array',
  })).rows
  let next = pages > 0 ? sumsOf(0) : undefined
  for (let page = 0; next !== undefined; page += 1) {
    const days = await next
    next = page + 1 < pages ? sumsOf(page + 1) : undefined
    // Handled here so that a failure waits, unreported, for its turn (or for the rollback).
    next?.catch(() => {})
    if (days.length === 0) continue
    let text = ''
    for (const day of days) {
      text += `${String(day[1])}\t${String(day[0])}`
      for (let index = 3; index < day.length; index += 1) text += '\t' + copyValue(day[index])
      text += '\t' + copyValue(render(groupRowOf(day))) + '\n'
    }
    await copyText(client, 'brand_daily', BRAND_DAY_COPY_COLUMNS, text)
  }
}
