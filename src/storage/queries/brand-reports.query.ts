import { addDays, lastDayOfMonth } from '../../domain/dates.js'
import type { Period } from '../../domain/period.js'
import type { Dialect } from '../db.js'
import { ROLLUP_METRICS } from '../read-model/columns.js'
import { BRAND_DAY_COLUMNS } from '../read-model/group-rows.js'

/**
 * The reports grouped by brand over every platform — the daily page, the monthly report and the agg
 * report of brands without `platform` or `split_by_platform` — read from the read model (migration
 * 2026_11_23_0100_read_model) with one statement each whose text never changes with the request:
 * the brand list is one parameter (SQLite `json_each`, PostgreSQL `= any`), and an empty range of
 * dates is passed as an impossible one. So each statement is prepared once per connection and
 * reused (src/storage/prepared.ts). Both dialects side by side.
 *
 * Monthly and agg split the period into whole months (brand_monthly) and at most two partial months
 * at its edges (brand_daily). Followers follow their own rule: per account, the last value reported
 * in the window — looked up in the tail edge, else the latest month that reported one
 * (account_monthly), else the head edge — summed per brand; whole months of a monthly report take
 * brand_monthly's own sum of each account's last value in the month.
 *
 * Every statement returns rows as arrays: bucket, group id (the brand), platform rank (0), then the
 * metrics in ROLLUP_METRICS order (agg: then the brand's name). Only groups with at least one
 * account-day come back.
 */

/** A statement with named parameters, written for one dialect. */
export interface Statement {
  /** Unique per text: the name it is prepared under. */
  name: string
  text: string
  /** The parameter names in order ($1, $2, … on PostgreSQL; @name on SQLite). */
  parameters: readonly string[]
}

/** A range no date falls in: passed where a piece of the period is empty, so the text stays the same. */
export const NO_DATES = { from: '9999-12-31', to: '1000-01-01' } as const

export interface PeriodPieces {
  /** First days of the first and last whole months, or NO_DATES. */
  months: { from: string, to: string }
  /** The partial month at the start (days), or NO_DATES. */
  head: { from: string, to: string }
  /** The partial month at the end (days), or NO_DATES. */
  tail: { from: string, to: string }
}

const firstOfMonth = (date: string): string => `${date.slice(0, 7)}-01`
const endOfMonth = (date: string): string => lastDayOfMonth(date.slice(0, 7))

/**
 * [since, until] as whole months and the partial months at either end. A period inside one month
 * is all head; two partial months next to each other are head and tail.
 */
export function splitPeriod (period: Period): PeriodPieces {
  const { since, until } = period
  const startsMonth = since === firstOfMonth(since)
  const endsMonth = until === endOfMonth(until)
  // The first whole month starts at since (a 1st) or at the next 1st; the last ends at until (a
  // month's last day) or at the end of the previous month. Neither exists past the calendar's ends.
  const firstWhole = startsMonth ? since : (since.startsWith('9999-12') ? undefined : addDays(endOfMonth(since), 1))
  const lastWholeEnd = endsMonth ? until : (until.startsWith('0001-01') ? undefined : addDays(firstOfMonth(until), -1))
  if (firstWhole !== undefined && lastWholeEnd !== undefined && firstWhole <= lastWholeEnd) {
    return {
      months: { from: firstWhole, to: firstOfMonth(lastWholeEnd) },
      head: startsMonth ? NO_DATES : { from: since, to: addDays(firstWhole, -1) },
      tail: endsMonth ? NO_DATES : { from: firstOfMonth(until), to: until },
    }
  }
  if (since.slice(0, 7) === until.slice(0, 7)) return { months: NO_DATES, head: { from: since, to: until }, tail: NO_DATES }
  return { months: NO_DATES, head: { from: since, to: endOfMonth(since) }, tail: { from: firstOfMonth(until), to: until } }
}

/** Writes one statement: named parameters, and the few spellings the dialects differ in. */
class Writer {
  readonly parameters: string[] = []
  readonly postgres: boolean
  /** One brand, bound as `brand`: the tables are read on it directly, with no table of brands to join. */
  readonly oneBrand: boolean
  constructor (dialect: Dialect, brands: 'one' | 'list' = 'list') {
    this.postgres = dialect === 'postgres'
    this.oneBrand = brands === 'one'
  }

  /** A named parameter: `@name` on SQLite, `$n::cast` on PostgreSQL (the same name twice is one parameter). */
  p (name: string, cast: string): string {
    let index = this.parameters.indexOf(name)
    if (index === -1) index = this.parameters.push(name) - 1
    return this.postgres ? `$${index + 1}::${cast}` : `@${name}`
  }

  /** The accounts of the statement's brands, one group per brand. */
  accountsOfBrands (): string {
    return `from accounts a where a.brand_id ${this.oneBrand ? `= ${this.p('brand', 'bigint')}` : 'in (select brand_id from b)'} group by a.brand_id`
  }

  /** The statement's brands, as a table `b (brand_id)`. */
  brandsTable (): string {
    return this.postgres ? `select unnest(${this.p('brands', 'bigint[]')}) as brand_id` : `select value as brand_id from json_each(${this.p('brands', 'text')})`
  }

  /** `b` joined to a table on its brand (SQLite: CROSS JOIN keeps the brands outermost); for one brand, the table on it. */
  joinBrands (table: string, alias: string, condition: string): string {
    if (this.oneBrand) return `from ${table} ${alias} where ${alias}.brand_id = ${this.p('brand', 'bigint')} and ${condition}`
    return this.postgres ? `from b join ${table} ${alias} on ${alias}.brand_id = b.brand_id and ${condition}` : `from b cross join ${table} ${alias} where ${alias}.brand_id = b.brand_id and ${condition}`
  }

  get nul (): string { return this.postgres ? 'null::bigint' : 'null' }
  monthText (expression: string): string { return this.postgres ? `to_char(${expression}, 'YYYY-MM')` : `substr(${expression}, 1, 7)` }
  sum (expression: string): string { return this.postgres ? `sum(${expression})::bigint` : `sum(${expression})` }
}

/** A piece's metric columns in ROLLUP_METRICS order, summed over `alias` or read as they are. */
function metricColumns (alias: string, followers: string, summed: boolean): string {
  return ROLLUP_METRICS.map((metric) => metric === 'followers' ? `${followers} as followers` : summed ? `sum(${alias}.${metric}) as ${metric}` : `${alias}.${metric}`).join(', ')
}

/** A brand_daily_running row's `_mtd` or `_rest` sums as a piece's metric columns (followers null: read per account). */
function runningColumns (w: Writer, alias: string, side: 'mtd' | 'rest'): string {
  return ROLLUP_METRICS.map((metric) => metric === 'followers' ? `${w.nul} as followers` : `${alias}.${metric}_${side} as ${metric}`).join(', ')
}

/** A piece that adds only followers (no account-day: rows_count 0, every other metric null). */
function followersColumns (w: Writer, followers: string): string {
  return ROLLUP_METRICS.map((metric) => metric === 'rows_count' ? '0 as rows_count' : metric === 'followers' ? `${followers} as followers` : `${w.nul} as ${metric}`).join(', ')
}

/** The last followers an account (alias `a`) reported between two dates, from the raw rows. */
function lastFollowersIn (from: string, to: string): string {
  return `(select f.followers from daily_metrics f where f.platform = a.platform and f.account_id = a.account_id
        and f.date between ${from} and ${to} and f.followers is not null order by f.date desc limit 1)`
}

function grouped (w: Writer, pieces: string, extra = ''): string {
  const brands = w.oneBrand ? '' : `b as (${w.brandsTable()}),\n  `
  return `with ${brands}pieces as (${pieces})
  select bucket, brand_id as group_id, 0 as platform_rank, ${ROLLUP_METRICS.map((metric) => `${w.sum(metric)} as ${metric}`).join(', ')}${extra}
  from pieces group by bucket, brand_id having sum(rows_count) > 0 order by bucket desc, group_id`
}

/**
 * The agg report of brands: one row per brand with an account-day in the period, its name last
 * (agg entries carry it), so the report is one statement and one round trip. `one`: the report of
 * a single brand, bound as `brand` rather than a list — the common question, whose statement then
 * reads each table on the brand directly (no list to unpack and join in every piece), and its
 * partial months from brand_daily_running; only for a period whose edges it can read
 * (`runningEdgesApply`). Docs/benchmarks.md "Reads: the reference harness" has what each saves.
 */
export function aggStatement (dialect: Dialect, brands: 'one' | 'list' = 'list'): Statement {
  const w = new Writer(dialect, brands)
  const [m1, m2, h1, h2, t1, t2] = ['m1', 'm2', 'h1', 'h2', 't1', 't2'].map((name) => w.p(name, 'date')) as [string, string, string, string, string, string]
  const lastMonth = `(select m.followers from account_monthly m where m.platform = a.platform and m.account_id = a.account_id
        and m.month between ${m1} and ${m2} and m.followers_date is not null order by m.month desc limit 1)`
  // The edges: one brand reads each from one brand_daily_running row (running.ts) — the head's
  // rest of the month from its first brand-day, the tail's month to date at its last — where a
  // list sums their brand-days. Either gives the same sums (test/storage/agg-statements.test.ts).
  const edges = w.oneBrand
    ? `
    union all select * from (select r.brand_id, '' as bucket, ${runningColumns(w, 'r', 'rest')}
      from brand_daily_running r where r.brand_id = ${w.p('brand', 'bigint')} and r.date between ${h1} and ${h2} order by r.date limit 1) h
    union all select * from (select r.brand_id, '' as bucket, ${runningColumns(w, 'r', 'mtd')}
      from brand_daily_running r where r.brand_id = ${w.p('brand', 'bigint')} and r.date between ${t1} and ${t2} order by r.date desc limit 1) t`
    : `
    union all select d.brand_id, '' as bucket, ${metricColumns('d', w.nul, true)}
      ${w.joinBrands('brand_daily', 'd', `d.date between ${h1} and ${h2}`)} group by d.brand_id
    union all select d.brand_id, '' as bucket, ${metricColumns('d', w.nul, true)}
      ${w.joinBrands('brand_daily', 'd', `d.date between ${t1} and ${t2}`)} group by d.brand_id`
  const text = grouped(w, `
    select m.brand_id, '' as bucket, ${metricColumns('m', w.nul, true)}
      ${w.joinBrands('brand_monthly', 'm', `m.month between ${m1} and ${m2}`)} group by m.brand_id${edges}
    union all select a.brand_id, '' as bucket, ${followersColumns(w, `sum(coalesce(${lastFollowersIn(t1, t2)}, ${lastMonth}, ${lastFollowersIn(h1, h2)}))`)}
      ${w.accountsOfBrands()}`, ', (select n.brand_name from brands n where n.brand_id = pieces.brand_id) as brand_name')
  return { name: brands === 'one' ? 'brand_agg_named_one' : 'brand_agg_named', text, parameters: w.parameters }
}

/** The monthly report of brands: one row per brand and month with an account-day in the period. */
export function monthlyStatement (dialect: Dialect): Statement {
  const w = new Writer(dialect)
  const [m1, m2, h1, h2, t1, t2] = ['m1', 'm2', 'h1', 'h2', 't1', 't2'].map((name) => w.p(name, 'date')) as [string, string, string, string, string, string]
  const edge = (from: string, to: string): string => `
    union all select d.brand_id, ${w.monthText(from)} as bucket, ${metricColumns('d', w.nul, true)}
      ${w.joinBrands('brand_daily', 'd', `d.date between ${from} and ${to}`)} group by d.brand_id
    union all select a.brand_id, ${w.monthText(from)} as bucket, ${followersColumns(w, `sum(${lastFollowersIn(from, to)})`)}
      ${w.accountsOfBrands()}`
  const text = grouped(w, `
    select m.brand_id, ${w.monthText('m.month')} as bucket, ${metricColumns('m', 'm.followers', false)}
      ${w.joinBrands('brand_monthly', 'm', `m.month between ${m1} and ${m2}`)}${edge(h1, h2)}${edge(t1, t2)}`)
  return { name: 'brand_monthly', text, parameters: w.parameters }
}

/**
 * The whole months of a monthly report of brands, rendered: bucket (`YYYY-MM`), brand, and the
 * brand-month's entry JSON (brand_monthly.entry_json, NULL for a row summed before it existed),
 * newest month first, then by brand. The edges come from monthlyStatement with no whole months.
 */
export function wholeMonthsStatement (dialect: Dialect): Statement {
  const w = new Writer(dialect)
  const [m1, m2] = ['m1', 'm2'].map((name) => w.p(name, 'date')) as [string, string]
  const text = `with b as (${w.brandsTable()})
  select ${w.monthText('m.month')} as bucket, m.brand_id, m.entry_json
  ${w.joinBrands('brand_monthly', 'm', `m.month between ${m1} and ${m2}`)} order by m.month desc, m.brand_id`
  return { name: 'brand_whole_months', text, parameters: w.parameters }
}

/** The daily page's brand-lists: one brand; a few (each brand's range); many (walk the dates). */
export type BrandCount = 'one' | 'few' | 'many'

/** Above this many brands a daily page walks the dates rather than each brand's range. */
export const FEW_BRANDS = 10

/**
 * What a daily page's rows carry: `rendered` — bucket, group id and the brand-day's entry JSON
 * (brand_daily.entry_json, NULL for a row summed before it existed); `sums` — bucket, group id,
 * platform rank and the metrics, to shape entries from.
 */
export type DailyPageColumns = 'rendered' | 'sums'

/** A daily page of brands: up to 21 brand-days, newest first, then by brand (the 21st says "there is more"). */
export function dailyPageStatement (dialect: Dialect, brands: BrandCount, continued: boolean, columns: DailyPageColumns): Statement {
  const w = new Writer(dialect)
  const scope = brands === 'one' ? `b.brand_id = ${w.p('brand', 'bigint')}` : `b.brand_id in (${w.brandsTable()})`
  const period = `b.date between ${w.p('since', 'date')} and ${w.p('until', 'date')}`
  // After the cursor's (date, brand): an earlier date, or the same date and a later brand.
  const after = !continued
    ? ''
    : w.postgres
      ? ` and (b.date, -b.brand_id) < (${w.p('after_date', 'date')}, -${w.p('after_brand', 'bigint')})`
      : ` and (b.date < ${w.p('after_date', 'text')} or (b.date = ${w.p('after_date', 'text')} and b.brand_id > ${w.p('after_brand', 'integer')}))`
  // SQLite's planner prefers each brand's range even for long lists; walking the dates is cheaper there.
  const table = brands === 'many' && !w.postgres ? 'brand_daily b indexed by brand_daily_date_idx' : 'brand_daily b'
  const selected = columns === 'rendered' ? 'b.date, b.brand_id, b.entry_json' : BRAND_DAY_COLUMNS
  const text = `select ${selected} from ${table} where ${scope} and ${period}${after} order by b.date desc, b.brand_id limit 21`
  return { name: `brand_daily_${brands}_${continued ? 'next' : 'first'}_${columns}`, text, parameters: w.parameters }
}

/**
 * Whether the agg statement of one brand can read the period's edges from brand_daily_running:
 * its head (when it has one) must run to its month's last day, so that it is a rest of the month;
 * its tail always starts on a month's first day. Only a period inside one month, ending before
 * that month's last day, has neither (it is all head): the brand-list statement sums its days.
 */
export function runningEdgesApply (period: Period): boolean {
  const { head } = splitPeriod(period)
  return head.from === NO_DATES.from || head.to === endOfMonth(head.to)
}

/** Named values of the agg and monthly statements: the brands, then the pieces of the period. */
export function periodValues (brandIds: readonly number[], period: Period): Record<string, unknown> {
  const { months, head, tail } = splitPeriod(period)
  return { brands: brandIds, brand: brandIds[0], m1: months.from, m2: months.to, h1: head.from, h2: head.to, t1: tail.from, t2: tail.to }
}
