import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * The read model the reports read (docs/storage.md "Read model"): what a daily page, a monthly or an
 * agg report needs, pre-summed by the import in the same transaction as the rows it writes.
 *
 * - brand_daily (brand_id, date): every metric summed over the brand's accounts for the day;
 * - brand_monthly (brand_id, month): the same over the month, with `followers` = Σ over the brand's
 *   accounts of each account's last reported followers in the month;
 * - account_monthly (platform, account_id, month): one account's month, with its last reported
 *   followers and that day (`followers_date`).
 *
 * Every table carries `rows_count` (the account-days summed: an entry exists iff > 0) and the sums,
 * NULL where no row reported the metric. `month` is the month's first day.
 *
 * The raw table changes too: on SQLite it becomes WITHOUT ROWID (one b-tree clustered on its key,
 * instead of a table plus a key index: range reads are one lookup, and the import does not decay as
 * the table grows), and on both stores it loses its foreign key to accounts: the import, its only
 * writer, refuses unknown accounts itself, and the per-row check halved PostgreSQL's COPY.
 *
 * Existing rows are summed into the new tables here, so an upgraded store answers as before.
 * Frozen: the column lists below are those of this migration, not the catalogue's.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

const DAILY_METRICS = [
  'views', 'followers', 'new_followers', 'posts_count', 'interactions', 'video_views_3s', 'video_views_2s',
  'views_video', 'reach', 'impressions', 'ad_reach', 'likes', 'shares', 'comments', 'views_organic',
  'views_paid', 'link_clicks',
]
/** Summed as they are (followers has its own rule). */
const FLOWS = DAILY_METRICS.filter((metric) => metric !== 'followers')
const REACH_PLATFORMS = "'fb', 'ig', 'sc', 'li'"

/** `rows_count, revenue_micros, followers, engagement_denominator, <flows>` with their types. */
const ROLLUP_COLUMNS = [
  'rows_count bigint not null', 'revenue_micros bigint', 'followers bigint', 'engagement_denominator bigint',
  ...FLOWS.map((metric) => `${metric} bigint`),
].join(', ')

const SUMS_OF_RAW = [
  'count(*)', 'sum(d.revenue_micros)', null, `sum(case when d.platform in (${REACH_PLATFORMS}) then d.reach else d.views end)`,
  ...FLOWS.map((metric) => `sum(d.${metric})`),
]
const SUMS_OF = (alias: string) => ['rows_count', 'revenue_micros', null, 'engagement_denominator', ...FLOWS].map((column) => column === null ? null : `sum(${alias}.${column})`)
const METRIC_NAMES = ['rows_count', 'revenue_micros', 'followers', 'engagement_denominator', ...FLOWS].join(', ')

export async function up (db: AnyDb): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  const run = async (text: string): Promise<void> => { await sql.raw(text).execute(db) }
  const rowid = postgres ? '' : ' without rowid'
  const monthType = postgres ? 'date' : 'text'

  if (postgres) {
    await run('alter table daily_metrics drop constraint daily_metrics_account_fk')
  } else {
    await run(`create table daily_metrics_clustered (platform text not null, account_id bigint not null, date date not null,
      revenue_micros bigint, ${DAILY_METRICS.map((metric) => `${metric} bigint`).join(', ')},
      primary key (platform, account_id, date)) without rowid`)
    await run(`insert into daily_metrics_clustered (platform, account_id, date, revenue_micros, ${DAILY_METRICS.join(', ')})
      select platform, account_id, date, revenue_micros, ${DAILY_METRICS.join(', ')} from daily_metrics`)
    await run('drop table daily_metrics')
    await run('alter table daily_metrics_clustered rename to daily_metrics')
  }

  await run(`create table brand_daily (brand_id bigint not null, date date not null, ${ROLLUP_COLUMNS}, primary key (brand_id, date))${rowid}`)
  // Daily pages over many brands walk the dates (a page is at most 20 entries, newest first).
  await run('create index brand_daily_date_idx on brand_daily (date desc, brand_id)')
  await run(`create table brand_monthly (brand_id bigint not null, month ${monthType} not null, ${ROLLUP_COLUMNS}, primary key (brand_id, month))${rowid}`)
  await run(`create table account_monthly (platform text not null, account_id bigint not null, month ${monthType} not null, ${ROLLUP_COLUMNS},
    followers_date date, primary key (platform, account_id, month))${rowid}`)

  // Today's rows, summed once (the import keeps the tables current from now on).
  const monthOf = postgres ? "date_trunc('month', d.date)::date" : "substr(d.date, 1, 8) || '01'"
  const lastFollowers = postgres
    ? "(max(case when d.followers is not null then array[d.date - date '2000-01-01', d.followers] end))[2]"
    // SQLite: a bare column beside exactly one max() is read from the row holding the max.
    : 'd.followers'
  await run(`insert into account_monthly (platform, account_id, month, followers_date, followers, ${METRIC_NAMES.replace('followers, ', '')})
    select d.platform, d.account_id, ${monthOf}, max(case when d.followers is not null then d.date end), ${lastFollowers},
      ${SUMS_OF_RAW.filter((sum) => sum !== null).join(', ')}
    from daily_metrics d group by d.platform, d.account_id, ${monthOf}`)
  await run(`insert into brand_daily (brand_id, date, ${METRIC_NAMES})
    select a.brand_id, d.date, ${SUMS_OF_RAW.map((sum) => sum ?? 'sum(d.followers)').join(', ')}
    from daily_metrics d join accounts a on a.platform = d.platform and a.account_id = d.account_id
    group by a.brand_id, d.date`)
  await run(`insert into brand_monthly (brand_id, month, ${METRIC_NAMES})
    select a.brand_id, m.month, ${SUMS_OF('m').map((sum) => sum ?? 'sum(m.followers)').join(', ')}
    from account_monthly m join accounts a on a.platform = m.platform and a.account_id = m.account_id
    group by a.brand_id, m.month`)
}

export async function down (db: AnyDb): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  for (const table of ['account_monthly', 'brand_monthly', 'brand_daily']) await sql.raw(`drop table ${table}`).execute(db)
  if (postgres) {
    await sql.raw('alter table daily_metrics add constraint daily_metrics_account_fk foreign key (platform, account_id) references accounts (platform, account_id)').execute(db)
  }
}
