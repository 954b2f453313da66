import { sql, type CompiledQuery, type ExpressionBuilder, type Kysely } from 'kysely'
import { addDays } from '../../domain/dates.js'
import type { ExportRequest } from '../../domain/exports.js'
import type { DAILY_COUNT_METRICS } from '../../domain/metrics.js'
import { REPORTED_METRICS } from '../../domain/metric-catalog.js'
import type { PlatformCode } from '../../domain/platforms.js'
import { POST_COUNT_METRICS, POST_TEXT_FIELDS } from '../../domain/post-fields.js'
import type { Database } from '../database.js'

/**
 * The statements an export reads (compiled here, run on the job's snapshot: snapshot.ts). Each
 * selects the dataset's columns in the order of src/domain/exports.ts, only rows of brands the
 * partner is granted at the snapshot (the grants are read in the same statement, so a brand
 * revoked before the job ran never appears), narrowed by the job's brands, platforms, accounts
 * and period. Rows come ordered so that a file can be cut by month as they arrive.
 */

/** The account filter of one changed account: its days to export again. */
export interface ChangedAccount {
  platform: PlatformCode
  accountId: number
  ranges: Array<{ since: string, until: string }>
}

type AccountsEb = ExpressionBuilder<Database, 'accounts'>

function scopeFilter (userId: string, request: ExportRequest) {
  return (eb: AccountsEb) => eb.and([
    eb('accounts.brand_id', 'in', eb.selectFrom('user_brands').select('user_brands.brand_id').where('user_brands.user_id', '=', userId)),
    ...(request.brandIds === undefined ? [] : [eb('accounts.brand_id', 'in', request.brandIds)]),
    ...(request.platforms === undefined ? [] : [eb('accounts.platform', 'in', request.platforms)]),
    ...(request.accountIds === undefined ? [] : [eb('accounts.account_id', 'in', request.accountIds)]),
  ])
}

/** The daily table's column of each reported metric of the catalogue, in catalogue order (revenue in micro-units). */
const DAILY_METRIC_REFS = REPORTED_METRICS.map((name) => (name === 'revenue' ? 'd.revenue_micros' : `d.${name}`) as `d.${'revenue_micros' | (typeof DAILY_COUNT_METRICS)[number]}`)

function dailyBase (db: Kysely<Database>, userId: string, request: ExportRequest) {
  return db.selectFrom('daily_metrics as d')
    .innerJoin('accounts', (join) => join.onRef('accounts.platform', '=', 'd.platform').onRef('accounts.account_id', '=', 'd.account_id'))
    .where(scopeFilter(userId, request))
    .$if(request.since !== undefined, (query) => query.where('d.date', '>=', request.since as string))
    .$if(request.until !== undefined, (query) => query.where('d.date', '<=', request.until as string))
}

/** The daily rows of the job's scope, by date, brand, platform, account. */
export function dailyRowsQuery (db: Kysely<Database>, userId: string, request: ExportRequest): CompiledQuery {
  return dailyBase(db, userId, request)
    .select(['d.date', 'accounts.brand_id', 'd.platform', 'd.account_id', ...DAILY_METRIC_REFS])
    .orderBy('d.date').orderBy('accounts.brand_id').orderBy('d.platform').orderBy('d.account_id')
    .compile()
}

/**
 * The same rows as dailyRowsQuery, as PostgreSQL's `COPY … TO STDOUT (FORMAT csv)` writes them for
 * a Parquet file's staging CSV (file-writers.ts): revenue as its exact decimal (numeric(18,6)), the
 * parameters written into the text (COPY takes none) by `literal`.
 */
export function dailyCopyStatement (db: Kysely<Database>, userId: string, request: ExportRequest, literal: (value: string) => string): string {
  const metrics = DAILY_METRIC_REFS.map((ref) => ref === 'd.revenue_micros' ? sql<string>`(d.revenue_micros::numeric / 1000000)::numeric(18,6)`.as('revenue') : ref)
  const query = dailyBase(db, userId, request)
    .select(['d.date', 'accounts.brand_id', 'd.platform', 'd.account_id', ...metrics])
    .orderBy('d.date').orderBy('accounts.brand_id').orderBy('d.platform').orderBy('d.account_id')
    .compile()
  const parameters = query.parameters
  const text = query.sql.replace(/\$(\d+)/g, (_, index: string) => {
    const value = parameters[Number(index) - 1]
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
    if (typeof value === 'string') return literal(value)
    throw new Error(`an export statement's parameter ${index} is neither an integer nor a text`)
  })
  return `copy (${text}) to stdout (format csv)`
}

/**
 * SQLite: the same rows as dailyRowsQuery, each as one line of a Parquet file's staging CSV
 * (file-writers.ts), LF-terminated, formatted by the statement as PostgreSQL's COPY would: the date
 * first and as it is (YYYY-MM-DD: the file is cut by its first 7 bytes), the platform quoted with
 * its `"` doubled (`%w`; neither is ever NULL), every integer as its digits, revenue as its exact
 * decimal, NULL an empty cell (`%s` of NULL). One text per row is what the export process
 * then handles, where a row of values cost a JavaScript value per cell and their conversion.
 */
export function dailyCsvLinesQuery (db: Kysely<Database>, userId: string, request: ExportRequest): CompiledQuery {
  const revenue = sql`case when d.revenue_micros is null then null
    when d.revenue_micros < 0 then printf('-%d.%06d', -d.revenue_micros / 1000000, -d.revenue_micros % 1000000)
    else printf('%d.%06d', d.revenue_micros / 1000000, d.revenue_micros % 1000000) end`
  const metrics = DAILY_METRIC_REFS.map((ref) => ref === 'd.revenue_micros' ? revenue : sql.ref(ref))
  const format = `%s,%s,"%w",%s${',%s'.repeat(metrics.length)}\n`
  const line = sql<string>`printf(${sql.lit(format)}, d.date, accounts.brand_id, d.platform, d.account_id, ${sql.join(metrics)})`
  return dailyBase(db, userId, request)
    .select(line.as('line'))
    .orderBy('d.date').orderBy('accounts.brand_id').orderBy('d.platform').orderBy('d.account_id')
    .compile()
}

/** The scope's daily rows counted; with `dates`, also its first and last date (`first_date`, `last_date`; NULL: no rows). */
export function dailyCountQuery (db: Kysely<Database>, userId: string, request: ExportRequest, dates = false): CompiledQuery {
  return dailyBase(db, userId, request)
    .select((eb) => eb.fn.countAll().as('rows'))
    .$if(dates, (query) => query.select((eb) => [eb.fn.min('d.date').as('first_date'), eb.fn.max('d.date').as('last_date')]))
    .compile()
}

/** One changed account's daily rows on its changed days (an incremental export). */
export function changedDailyRowsQuery (db: Kysely<Database>, userId: string, request: ExportRequest, account: ChangedAccount): CompiledQuery {
  return dailyBase(db, userId, request)
    .where('d.platform', '=', account.platform).where('d.account_id', '=', account.accountId)
    .where((eb) => eb.or(account.ranges.map((range) => eb.and([eb('d.date', '>=', range.since), eb('d.date', '<=', range.until)]))))
    .select(['d.date', 'accounts.brand_id', 'd.platform', 'd.account_id', ...DAILY_METRIC_REFS])
    .orderBy('d.date')
    .compile()
}

/** analytics.updated events after `afterEvent` through the snapshot's last, of granted brands, oldest first. */
export function changedEventsQuery (db: Kysely<Database>, userId: string, request: ExportRequest, afterEvent: number, throughEvent: number, limit: number): CompiledQuery {
  return db.selectFrom('change_events').select(['event_id', 'data'])
    .where('type', '=', 'analytics.updated')
    .where('event_id', '>', afterEvent).where('event_id', '<=', throughEvent)
    .where('brand_id', 'in', (eb) => eb.selectFrom('user_brands').select('user_brands.brand_id').where('user_brands.user_id', '=', userId))
    .$if(request.brandIds !== undefined, (query) => query.where('brand_id', 'in', request.brandIds as number[]))
    .orderBy('event_id')
    .limit(limit)
    .compile()
}

const POST_METRIC_REFS = [...POST_COUNT_METRICS, 'revenue_micros' as const].map((column) => `p.${column}` as const)
const POST_TEXT_REFS = POST_TEXT_FIELDS.map((column) => `p.${column}` as const)

function postsBase (db: Kysely<Database>, userId: string, request: ExportRequest) {
  return db.selectFrom('posts as p')
    .innerJoin('accounts', (join) => join.onRef('accounts.platform', '=', 'p.platform').onRef('accounts.account_id', '=', 'p.account_id'))
    .where(scopeFilter(userId, request))
    .$if(request.since !== undefined, (query) => query.where('p.created_time', '>=', `${request.since as string}T00:00:00Z`))
    .$if(request.until !== undefined, (query) => query.where('p.created_time', '<', `${addDays(request.until as string, 1)}T00:00:00Z`))
}

/** The posts of the job's scope, by publication time, platform, id. */
export function postRowsQuery (db: Kysely<Database>, userId: string, request: ExportRequest): CompiledQuery {
  return postsBase(db, userId, request)
    .select(['p.id', 'p.platform', 'p.account_id', 'accounts.brand_id', 'p.created_time', 'p.type', 'p.post_type', ...POST_TEXT_REFS, ...POST_METRIC_REFS])
    .orderBy('p.created_time').orderBy('p.platform').orderBy('p.id')
    .compile()
}

export function postCountQuery (db: Kysely<Database>, userId: string, request: ExportRequest): CompiledQuery {
  return postsBase(db, userId, request).select((eb) => eb.fn.countAll().as('rows')).compile()
}

function accountsBase (db: Kysely<Database>, userId: string, request: ExportRequest) {
  return db.selectFrom('accounts')
    .innerJoin('brands as b', 'b.brand_id', 'accounts.brand_id')
    .leftJoin('account_coverage as c', (join) => join.onRef('c.platform', '=', 'accounts.platform').onRef('c.account_id', '=', 'accounts.account_id'))
    .where(scopeFilter(userId, request))
}

/** The accounts of the job's scope with their coverage, by brand, platform, account. */
export function accountRowsQuery (db: Kysely<Database>, userId: string, request: ExportRequest): CompiledQuery {
  return accountsBase(db, userId, request)
    .select(['accounts.platform', 'accounts.account_id', 'accounts.brand_id', 'b.brand_name', 'accounts.account_name', 'accounts.network_id',
      'accounts.storage_avatar', 'accounts.permalink', 'c.first_date', 'c.last_date', 'c.synced_at'])
    .orderBy('accounts.brand_id').orderBy('accounts.platform').orderBy('accounts.account_id')
    .compile()
}

export function accountCountQuery (db: Kysely<Database>, userId: string, request: ExportRequest): CompiledQuery {
  return accountsBase(db, userId, request).select((eb) => eb.fn.countAll().as('rows')).compile()
}
