import type { Entry, EntryGaps, EntryKey, Grouping, MissingAccountDays, ReportType } from '../../domain/analytics.js'
import type { DateRange } from '../../domain/data-status.js'
import { lastDayOfMonth } from '../../domain/dates.js'
import { accountWindow, combineAccounts, rateValue, type AccountDays, type DayValues, type GroupFigures } from '../../domain/gaps/index.js'
import { METRIC_CATALOG, REPORTED_METRICS, type MetricDefinition } from '../../domain/metric-catalog.js'
import type { Period } from '../../domain/period.js'
import { PLATFORM_CODES, type PlatformCode } from '../../domain/platforms.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import { buildAccountsQuery, buildDayRowsQuery, type AccountRow, type AccountDaysQueryInput } from '../../storage/queries/account-days.query.js'
import { readRows } from '../../storage/queries/status-sql.js'

/**
 * gaps=carry (docs/analytics.md "Missing data"): the figures of a report's entries by the gap
 * rules of src/domain/gaps/, for exactly the entries the report has (the same keys as gaps=zero:
 * an entry exists where a row does). The store gives the account-days; the rules make the figures.
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
