import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * brand_daily_running (brand_id, date): each brand-day's month-to-date sums (`<metric>_mtd`: from
 * the first of its month through the day) and rest-of-month sums (`<metric>_rest`: from the day
 * through the month's last day), so that the partial month at either edge of an agg period is one
 * row rather than its days summed (docs/storage.md "Read model", src/storage/read-model/running.ts).
 * Kept by the import in the transaction that writes brand_daily. Existing brand-days are summed
 * here, so an upgraded store answers as before. Frozen: the column list is this migration's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

const METRICS = [
  'rows_count', 'revenue_micros', 'engagement_denominator', 'views', 'new_followers', 'posts_count', 'interactions',
  'video_views_3s', 'video_views_2s', 'views_video', 'reach', 'impressions', 'ad_reach', 'likes', 'shares', 'comments',
  'views_organic', 'views_paid', 'link_clicks',
]

export async function up (db: AnyDb): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  const run = async (text: string): Promise<void> => { await sql.raw(text).execute(db) }
  const columns = METRICS.flatMap((metric) => [`${metric}_mtd`, `${metric}_rest`])
  await run(`create table brand_daily_running (brand_id bigint not null, date date not null,
    ${columns.map((column) => `${column} bigint`).join(', ')}, primary key (brand_id, date))${postgres ? '' : ' without rowid'}`)
  const month = postgres ? "date_trunc('month', b.date)" : 'substr(b.date, 1, 7)'
  const cast = postgres ? '::bigint' : ''
  await run(`insert into brand_daily_running (brand_id, date, ${columns.join(', ')})
    select b.brand_id, b.date, ${METRICS.map((metric) => `(sum(b.${metric}) over upto)${cast}, (sum(b.${metric}) over onwards)${cast}`).join(', ')}
    from brand_daily b
    window upto as (partition by b.brand_id, ${month} order by b.date), onwards as (partition by b.brand_id, ${month} order by b.date desc)`)
}

export async function down (db: AnyDb): Promise<void> {
  await sql`drop table brand_daily_running`.execute(db)
}
