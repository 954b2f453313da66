import type { DailyPosition, Entry, EntryGaps, EntryKey, GroupRow, Grouping, MissingAccountDays, ReportType } from '../../domain/analytics.js'
import type { DateRange } from '../../domain/data-status.js'
import { addDays, lastDayOfMonth } from '../../domain/dates.js'
import { accountWindow, carriesOver, combineAccounts, rateValue, type AccountDays, type DayValues, type GroupFigures } from '../../domain/gaps/index.js'
import { METRIC_CATALOG, REPORTED_METRICS, type MetricDefinition } from '../../domain/metric-catalog.js'
import { SUMMED_METRICS } from '../../domain/metrics.js'
import type { Period } from '../../domain/period.js'
import { PLATFORM_CODES, type PlatformCode } from '../../domain/platforms.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import { buildAccountsQuery, buildDayRowsQuery, type AccountRow, type AccountDaysQueryInput } from '../../storage/queries/account-days.query.js'
import { readRows } from '../../storage/queries/status-sql.js'

/**
 * gaps=carry (docs/analytics.md "Missing data"): the figures of a report's entries by the gap
 * rules of src/domain/gaps/, for the entries the report has where a row does (the keys of
 * gaps=zero) and for the carried-only ones: a group (a brand, a platform, an account) with an
 * account whose coverage meets the entry's window but no row in it (brand 4's Facebook account
 * alone on 2026-11-04) is an entry too, its stock carried, its flows those of nothing reported.
 * The store gives the account-days; the rules make the figures.
 */

export interface CarryInput {
  report: ReportType
  scope: Scope
  grouping: Omit<Grouping, 'bucket'>
  period: Period
  /** The entries' keys, in the entries' order. */
  keys: readonly EntryKey[]
  /** Also the per-metric missing accounts (include=status): every reported metric is read. */
  withStatus: boolean
  heavy: boolean
}

/** Without status, only what the stocks and rates need is read. */
const STOCKS = METRIC_CATALOG.filter((metric) => metric.kind === 'stock')
const RATES = METRIC_CATALOG.filter((metric) => metric.kind === 'rate' && metric.sameAs === undefined)
const COMPUTED = METRIC_CATALOG.filter((metric) => metric.sameAs === undefined)
const RATE_INPUTS = [...new Set(RATES.flatMap((metric) => {
  const ratio = metric.ratioOf
  if (ratio === undefined) return []
  return [ratio.numerator, ...Object.values(ratio.denominatorByPlatform ?? {}), ratio.denominator].filter((name) => REPORTED_METRICS.includes(name))
}))]
const NEEDED = [...new Set([...STOCKS.map((metric) => metric.name), ...RATE_INPUTS])]

const keyOf = (key: Pick<EntryKey, 'group_id' | 'platform_rank'>): string => `${Number(key.group_id)}|${Number(key.platform_rank)}`

/** The entry's window: its day, its month inside the period, or the period. */
export function windowOf (report: ReportType, bucket: string, period: Period): DateRange {
  if (report === 'daily') return { since: bucket, until: bucket }
  if (report === 'agg') return { since: period.since, until: period.until }
  const first = `${bucket}-01`
  const last = lastDayOfMonth(bucket)
  return { since: first > period.since ? first : period.since, until: last < period.until ? last : period.until }
}

export interface GroupedAccount {
  group: string
  account: AccountDays
}

/** The store's account rows and day rows → each account's AccountDays (what the gap rules are given), with its group key. */
export function accountsOf (rows: readonly AccountRow[], dayRows: ReadonlyArray<Record<string, unknown>>): GroupedAccount[] {
  const days = new Map<string, Map<string, DayValues>>()
  for (const row of dayRows) {
    const id = `${String(row.platform)}:${Number(row.account_id)}`
    let byDay = days.get(id)
    if (byDay === undefined) days.set(id, byDay = new Map())
    const values: Record<string, number | null> = {}
    for (const [name, value] of Object.entries(row)) {
      if (name !== 'platform' && name !== 'account_id' && name !== 'date') values[name] = value === null ? null : Number(value)
    }
    byDay.set(String(row.date), values)
  }
  return rows.map((row) => {
    const stocksBefore: Record<string, { date: string, value: number } | undefined> = {}
    for (const stock of STOCKS) {
      const value = row[stock.name]
      const date = row[`${stock.name}_date`]
      if (value !== null && value !== undefined && date !== null && date !== undefined) stocksBefore[stock.name] = { date: String(date), value: Number(value) }
    }
    return {
      group: keyOf(row),
      account: {
        platform: row.platform as PlatformCode,
        accountId: Number(row.account_id),
        coverage: { since: String(row.first_date), until: String(row.last_date) },
        days: days.get(`${row.platform}:${Number(row.account_id)}`) ?? new Map(),
        stocksBefore,
      },
    }
  })
}

/** One GroupFigures per key, in the keys' order. */
export async function readCarriedFigures (store: Store, input: CarryInput): Promise<GroupFigures[]> {
  const { report, scope, grouping, period, keys, withStatus, heavy } = input
  if (keys.length === 0) return []
  const windows = keys.map((key) => windowOf(report, key.bucket, period))
  const query: AccountDaysQueryInput = {
    dialect: store.dialect,
    scope,
    grouping,
    groupIds: report === 'daily' ? [...new Set(keys.map((key) => Number(key.group_id)))] : undefined,
    from: windows.reduce((from, window) => window.since < from ? window.since : from, period.until),
    to: windows.reduce((to, window) => window.until > to ? window.until : to, period.since),
  }
  const [accountRows, dayRows] = await Promise.all([
    readRows<AccountRow>(store, buildAccountsQuery(store.db, query, STOCKS.map((metric) => metric.name)), heavy),
    readRows<Record<string, unknown>>(store, buildDayRowsQuery(store.db, query, withStatus ? REPORTED_METRICS : NEEDED), heavy),
  ])
  const byGroup = new Map<string, AccountDays[]>()
  for (const { group, account } of accountsOf(accountRows, dayRows)) {
    const members = byGroup.get(group)
    if (members === undefined) byGroup.set(group, [account])
    else members.push(account)
  }
  const metrics: readonly MetricDefinition[] = withStatus ? COMPUTED : [...STOCKS, ...RATES]
  return keys.map((key, index) => {
    const window = windows[index] as DateRange
    return combineAccounts((byGroup.get(keyOf(key)) ?? []).map((account) => accountWindow(account, window, metrics)), metrics)
  })
}

/** The entry with its stocks and rates as the gap rules make them (flows are the same as gaps=zero's). */
export function carriedEntry (entry: Entry, figures: GroupFigures): Entry {
  for (const stock of STOCKS) {
    if (stock.name in entry) entry[stock.name] = figures.sums[stock.name] ?? 0
  }
  for (const metric of METRIC_CATALOG) {
    if (metric.kind === 'rate' && metric.name in entry) entry[metric.name] = rateValue(figures, metric)
  }
  return entry
}

/**
 * include=status with gaps=carry: per metric of the entry (those its status counts), the accounts
 * whose value was carried (stocks) and the accounts with days that did not report it.
 */
export function entryGaps (figures: GroupFigures, metrics: readonly string[]): EntryGaps {
  const byAccount = (a: MissingAccountDays, b: MissingAccountDays): number => PLATFORM_CODES.indexOf(a.platform) - PLATFORM_CODES.indexOf(b.platform) || a.account_id - b.account_id
  return Object.fromEntries(metrics.map((metric) => [metric, { carried: figures.carried[metric] ?? 0, missing: [...(figures.missing[metric] ?? [])].sort(byAccount) }]))
}

const fullKeyOf = (key: EntryKey): string => `${key.bucket}|${Number(key.group_id)}|${Number(key.platform_rank)}`

/** The report's order of entries: newest bucket first, then group id, then platform rank. */
export function compareKeys (a: EntryKey, b: EntryKey): number {
  if (a.bucket !== b.bucket) return a.bucket > b.bucket ? -1 : 1
  return Number(a.group_id) - Number(b.group_id) || Number(a.platform_rank) - Number(b.platform_rank)
}

const keyAt = (position: DailyPosition): EntryKey => ({ bucket: position.date, group_id: position.groupId, platform_rank: position.platformRank })

export interface CarriedOnlyInput {
  report: ReportType
  scope: Scope
  grouping: Omit<Grouping, 'bucket'>
  period: Period
  /** The keys of the entries rows make (a daily page's, the months', the period's). */
  keys: readonly EntryKey[]
  /** A daily page: the position it continues after, and the one it ends at (undefined: the period's first or last day). */
  after?: DailyPosition | undefined
  next?: DailyPosition | undefined
  heavy: boolean
}

/**
 * The carried-only entries' keys, in the report's order: each bucket (day, month inside the
 * period, the period) × group with an account whose coverage meets the bucket's window and no
 * row there. A daily page takes those between the position it continues after and its last
 * entry (to the period's first day on the last page), so pages and cursors stay those of gaps=zero.
 */
export async function readCarriedOnlyKeys (store: Store, input: CarriedOnlyInput): Promise<EntryKey[]> {
  const { report, scope, grouping, period, keys, after, next, heavy } = input
  const from = report === 'daily' && next !== undefined ? next.date : period.since
  const to = report === 'daily' && after !== undefined ? after.date : period.until
  if (from > to) return []
  const accounts = await readRows<AccountRow>(store, buildAccountsQuery(store.db, { dialect: store.dialect, scope, grouping, from, to }, []), heavy)
  const made = new Set(keys.map(fullKeyOf))
  const found = new Map<string, EntryKey>()
  const add = (bucket: string, account: AccountRow): void => {
    const key: EntryKey = { bucket, group_id: Number(account.group_id), platform_rank: Number(account.platform_rank) }
    const id = fullKeyOf(key)
    if (!made.has(id)) found.set(id, key)
  }
  // Which bucket × group is an entry is the rule POST /reports asks too (carriesOver): one place.
  const windows = bucketsBetween(report, from, to).map((bucket) => ({ bucket, window: windowOf(report, bucket, period) }))
  for (const account of accounts) {
    const coverage = { since: String(account.first_date), until: String(account.last_date) }
    for (const { bucket, window } of windows) if (carriesOver(coverage, window)) add(bucket, account)
  }
  const lower = after === undefined ? undefined : keyAt(after)
  const upper = next === undefined ? undefined : keyAt(next)
  return [...found.values()]
    .filter((key) => report !== 'daily' || ((lower === undefined || compareKeys(lower, key) < 0) && (upper === undefined || compareKeys(key, upper) <= 0)))
    .sort(compareKeys)
}

/** The report's buckets from `from` to `to`: each day, each month, or the period (''). */
function bucketsBetween (report: ReportType, from: string, to: string): string[] {
  const buckets: string[] = []
  if (report === 'agg') buckets.push('')
  else if (report === 'daily') for (let day = from; day <= to; day = addDays(day, 1)) buckets.push(day)
  else for (let month = from.slice(0, 7); month <= to.slice(0, 7); month = addDays(`${month}-01`, 32).slice(0, 7)) buckets.push(month)
  return buckets
}

/** The summed row of a carried-only entry: nothing reported (its stocks and rates are then the gap rules'). */
export function nothingReported (key: EntryKey): GroupRow {
  const row: Record<string, unknown> = { bucket: key.bucket, group_id: key.group_id, platform_rank: key.platform_rank, revenue_micros: null, followers: null, engagement_denominator: null }
  for (const metric of SUMMED_METRICS) row[metric] = null
  return row as GroupRow
}

/** Both lists in the report's order, merged: the entries rows make and the carried-only ones. */
export function mergeByKey<T> (made: ReadonlyArray<{ key: EntryKey, item: T }>, carriedOnly: ReadonlyArray<{ key: EntryKey, item: T }>): Array<{ key: EntryKey, item: T }> {
  if (carriedOnly.length === 0) return [...made]
  return [...made, ...carriedOnly].sort((a, b) => compareKeys(a.key, b.key))
}
