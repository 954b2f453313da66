import { issue, validationError } from '../../domain/errors.js'
import { carriesOver, type GroupFigures } from '../../domain/gaps/index.js'
import { metricDefinition, type MetricDefinition } from '../../domain/metric-catalog.js'
import { periodDays, type Period } from '../../domain/period.js'
import { PLATFORM_CODES, type PlatformCode } from '../../domain/platforms.js'
import type { ReportResult, ReportRow, RowKeys } from '../../domain/report-result.js'
import {
  MAX_REPORT_ROWS, bucketCount, bucketsOf, comparisonPeriod, timeDimensionOf,
  type ReportDimension, type ReportRequest, type TimeBucket,
} from '../../domain/reports.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import {
  REPORT_COLUMNS, buildAccountBucketsQuery, buildScopeAccountsQuery, type AccountBucketRow, type ScopeAccountRow,
} from '../../storage/queries/report-buckets.query.js'
import { readRows } from '../../storage/queries/status-sql.js'
import { GroupWindows, readPeriodAccountDays, ruledMetricsOf, type PeriodAccountDays } from './carried-buckets.js'
import { Sums, carriedFigureOf, changeOf, columnsOfMetrics, figureOf } from './figures.js'

/**
 * POST /reports below HTTP (docs/reports.md): given a validated request and its resolved scope,
 * bound its size, read one row per account and time bucket (for the period and, with a
 * comparison, the other period), and shape the rows: group by the dimensions, each metric by its
 * catalogue rule, order, page, totals over the whole result by the same rules, completeness.
 */
export interface ReportsService {
  /** @throws AppError VALIDATION_ERROR when the report would be too large (before anything is summed). */
  run: (scope: Scope, request: ReportRequest) => Promise<ReportResult>
}

/**
 * Account-buckets a report may read (accounts of the scope × time buckets, both periods): what the
 * read costs, whatever the dimensions. With MAX_REPORT_ROWS, the bound checked before it runs.
 */
export const MAX_ACCOUNT_BUCKETS = 1_000_000

interface Account {
  platform: PlatformCode
  accountId: number
  brandId: number
  accountName: string
  brandName: string
  firstDate: string | null
  lastDate: string | null
}

/**
 * What a group's figures are made from: its account-buckets summed (gaps=zero, the default), or
 * the gap rules' figures of its accounts over its bucket (gaps=carry: carried-buckets.ts).
 */
type Basis = { kind: 'sums', sums: Sums } | { kind: 'carry', figures: GroupFigures, daysReported: number }

interface Group {
  key: string
  keys: RowKeys
  bucket: TimeBucket
  platform: PlatformCode | undefined
  basis: Basis
}

const daysReportedOf = (basis: Basis): number => basis.kind === 'sums' ? basis.sums.daysReported : basis.daysReported

/** One period's read: its groups for the period's buckets, its whole-period basis (totals), the account-days it read. */
interface PeriodRead {
  groups: (buckets: readonly TimeBucket[], dimensions: readonly ReportDimension[]) => Map<string, Group>
  totals: () => Basis
  accountDaysRead: number
}

function summedRead (rows: readonly AccountBucketRow[], accounts: ReadonlyMap<string, Account>): PeriodRead {
  return {
    groups: (buckets, dimensions) => groupRows(rows, accounts, buckets, dimensions),
    totals: () => ({ kind: 'sums', sums: totalSums(rows, accounts) }),
    accountDaysRead: rows.reduce((total, row) => total + Number(row.days_reported), 0),
  }
}

/**
 * gaps=carry: each account's window over each bucket by the gap rules, combined per group. A group
 * exists where one of its accounts' coverage meets the bucket (carriesOver, the rule
 * /analytics/?gaps=carry's entries follow): with no account-day reported there it is a carried-only
 * row (stocks carried, flows 0). Its figures are every such account's (a stock carried for one that did not report).
 */
function carriedRead (read: PeriodAccountDays, accounts: ReadonlyMap<string, Account>, period: Period, ruled: readonly MetricDefinition[]): PeriodRead {
  return {
    groups: (buckets, dimensions) => {
      const byKey = new Map<string, { keys: RowKeys, bucket: TimeBucket, platform: PlatformCode | undefined, windows: GroupWindows }>()
      const hasPlatform = dimensions.includes('platform') || dimensions.includes('account')
      for (const [id, days] of read.accounts) {
        const account = accounts.get(id)
        if (account === undefined) continue
        const scopeKey = scopeKeyOf(dimensions, account)
        for (const bucket of buckets) {
          if (!carriesOver(days.coverage, { since: bucket.from, until: bucket.to })) continue
          const key = `${bucket.position}|${scopeKey}`
          let group = byKey.get(key)
          if (group === undefined) byKey.set(key, group = { keys: keysOf(dimensions, account, bucket), bucket, platform: hasPlatform ? account.platform : undefined, windows: new GroupWindows() })
          group.windows.add(days, { since: bucket.from, until: bucket.to }, ruled)
        }
      }
      const groups = new Map<string, Group>()
      for (const [key, { keys, bucket, platform, windows }] of byKey) {
        groups.set(key, { key, keys, bucket, platform, basis: { kind: 'carry', figures: windows.figures(ruled), daysReported: windows.daysReported } })
      }
      return groups
    },
    totals: () => {
      const windows = new GroupWindows()
      for (const [id, days] of read.accounts) if (accounts.has(id)) windows.add(days, period, ruled)
      return { kind: 'carry', figures: windows.figures(ruled), daysReported: windows.daysReported }
    },
    accountDaysRead: read.rowsRead,
  }
}

const num = (value: number | string | null | undefined): number | null => value === null || value === undefined ? null : Number(value)
const accountKey = (platform: string, accountId: number): string => `${platform}:${accountId}`

/** The part of a group's key that is not time: its platform, brand, account, as the dimensions ask. */
function scopeKeyOf (dimensions: readonly ReportDimension[], account: Account): string {
  const parts: string[] = []
  for (const dimension of dimensions) {
    if (dimension === 'platform') parts.push(account.platform)
    else if (dimension === 'brand') parts.push(String(account.brandId))
    else if (dimension === 'account') parts.push(accountKey(account.platform, account.accountId))
  }
  return parts.join('|')
}

function keysOf (dimensions: readonly ReportDimension[], account: Account, bucket: TimeBucket): RowKeys {
  const keys: RowKeys = {}
  for (const dimension of dimensions) {
    if (dimension === 'platform') keys.platform = account.platform
    else if (dimension === 'brand') {
      keys.brandId = account.brandId
      keys.brandName = account.brandName
    } else if (dimension === 'account') {
      keys.platform = account.platform
      keys.accountId = account.accountId
      keys.accountName = account.accountName
    } else keys.time = bucket.label
  }
  return keys
}

/** Groups keyed `position|scope key`: the position of the time bucket aligns a comparison's buckets. */
function groupRows (rows: readonly AccountBucketRow[], accounts: ReadonlyMap<string, Account>, buckets: readonly TimeBucket[], dimensions: readonly ReportDimension[]): Map<string, Group> {
  const byStart = new Map(buckets.map((bucket) => [bucket.start, bucket]))
  const hasPlatform = dimensions.includes('platform') || dimensions.includes('account')
  const groups = new Map<string, Group>()
  for (const row of rows) {
    const account = accounts.get(accountKey(row.platform, Number(row.account_id)))
    const bucket = byStart.get(row.bucket)
    if (account === undefined || bucket === undefined) continue
    const key = `${bucket.position}|${scopeKeyOf(dimensions, account)}`
    let group = groups.get(key)
    if (group === undefined) {
      group = { key, keys: keysOf(dimensions, account, bucket), bucket, platform: hasPlatform ? account.platform : undefined, basis: { kind: 'sums', sums: new Sums() } }
      groups.set(key, group)
    }
    if (group.basis.kind === 'sums') group.basis.sums.add(account.platform, sumsOf(row), num(row.last_followers), Number(row.days_reported))
  }
  return groups
}

/** The row's summed columns (those the query summed: the request's metrics' columns). */
function sumsOf (row: AccountBucketRow): Record<string, number | null> {
  const sums: Record<string, number | null> = {}
  for (const column of REPORT_COLUMNS) if (column in row) sums[column] = num(row[column])
  return sums
}

/** Account-days expected per group key: each account's coverage days inside each bucket. */
function expectedDays (accounts: readonly Account[], buckets: readonly TimeBucket[], dimensions: readonly ReportDimension[]): Map<string, number> {
  const expected = new Map<string, number>()
  for (const account of accounts) {
    const { firstDate, lastDate } = account
    if (firstDate === null || lastDate === null) continue
    const scopeKey = scopeKeyOf(dimensions, account)
    for (const bucket of buckets) {
      if (bucket.to < firstDate || bucket.from > lastDate) continue
      const from = bucket.from > firstDate ? bucket.from : firstDate
      const to = bucket.to < lastDate ? bucket.to : lastDate
      const days = periodDays({ since: from, until: to })
      const key = `${bucket.position}|${scopeKey}`
      expected.set(key, (expected.get(key) ?? 0) + days)
    }
  }
  return expected
}

/** Sums of the whole period: flows added, followers the last each account reported in the period. */
function totalSums (rows: readonly AccountBucketRow[], accounts: ReadonlyMap<string, Account>): Sums {
  const totals = new Sums()
  const lastOf = new Map<string, { bucket: string, value: number }>()
  for (const row of rows) {
    const account = accounts.get(accountKey(row.platform, Number(row.account_id)))
    if (account === undefined) continue
    totals.add(account.platform, sumsOf(row), null, Number(row.days_reported))
    const followers = num(row.last_followers)
    if (followers === null) continue
    const key = accountKey(row.platform, account.accountId)
    const kept = lastOf.get(key)
    if (kept === undefined || kept.bucket < row.bucket) lastOf.set(key, { bucket: row.bucket, value: followers })
  }
  for (const { value } of lastOf.values()) totals.lastFollowers = (totals.lastFollowers ?? 0) + value
  return totals
}

function figures (metrics: readonly string[], basis: Basis, days: number, platform: PlatformCode | undefined): Record<string, number | null> {
  return Object.fromEntries(metrics.map((metric) => [metric, basis.kind === 'sums' ? figureOf(metric, basis.sums, days, platform) : carriedFigureOf(metric, basis.figures, platform)]))
}

/** A group with nothing reported (a comparison bucket without rows). */
function emptyBasis (request: ReportRequest): Basis {
  if (request.gaps !== 'carry') return { kind: 'sums', sums: new Sums() }
  const ruled = ruledMetricsOf(request.metrics)
  return { kind: 'carry', figures: new GroupWindows().figures(ruled), daysReported: 0 }
}

/** Rows in the request's order, ties (and no order) by the dimensions ascending, in their order. */
function compareRows (request: ReportRequest, a: ShapedRow, b: ShapedRow): number {
  for (const order of request.orderBy) {
    const difference = order.kind === 'metric'
      ? compareValues(a.row.metrics[order.key] ?? null, b.row.metrics[order.key] ?? null)
      : compareDimension(order.key as ReportDimension, a, b)
    if (difference !== 0) return order.desc ? -difference : difference
  }
  for (const dimension of request.dimensions) {
    const difference = compareDimension(dimension, a, b)
    if (difference !== 0) return difference
  }
  return 0
}

/** Numbers ascending; null (a metric the row's platform lacks) before every number. */
function compareValues (a: number | null, b: number | null): number {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  return a - b
}

const PLATFORM_RANK = new Map<string, number>(PLATFORM_CODES.map((code, rank) => [code, rank]))

function compareDimension (dimension: ReportDimension, a: ShapedRow, b: ShapedRow): number {
  const x = a.row.keys
  const y = b.row.keys
  switch (dimension) {
    case 'platform': return (PLATFORM_RANK.get(x.platform ?? '') ?? 0) - (PLATFORM_RANK.get(y.platform ?? '') ?? 0)
    case 'brand': return (x.brandId ?? 0) - (y.brandId ?? 0)
    case 'account': return (PLATFORM_RANK.get(x.platform ?? '') ?? 0) - (PLATFORM_RANK.get(y.platform ?? '') ?? 0) || (x.accountId ?? 0) - (y.accountId ?? 0)
    default: return a.position - b.position
  }
}

interface ShapedRow {
  row: ReportRow
  position: number
}

function toAccount (row: ScopeAccountRow): Account {
  return {
    platform: row.platform as PlatformCode,
    accountId: Number(row.account_id),
    brandId: Number(row.brand_id),
    accountName: row.account_name,
    brandName: row.brand_name,
    firstDate: row.first_date,
    lastDate: row.last_date,
  }
}

function tooLarge (msg: string, ctx: Record<string, unknown>): Error {
  return validationError([issue(['body'], msg, 'report_too_large', ctx)])
}

export function createReportsService (deps: { store: Store }): ReportsService {
  async function run (store: Store, scope: Scope, request: ReportRequest): Promise<ReportResult> {
    const { dimensions, period } = request
    const time = timeDimensionOf(dimensions)
    let other: Period | undefined
    if (request.comparison !== undefined) {
      other = comparisonPeriod(request.comparison, period)
      if (other === undefined) throw validationError([issue(['body', 'comparison'], 'The comparison period would start before 0001-01-01', 'comparison_out_of_range')])
    }
    const empty = scope.brandIds.length === 0
    const accountRows = empty ? [] : await readRows<ScopeAccountRow>(store, buildScopeAccountsQuery(store.db, scope), false)
    const accountList = accountRows.map(toAccount)
    const accounts = new Map(accountList.map((account) => [accountKey(account.platform, account.accountId), account]))

    // The bound, before anything is summed: rows (scope keys × buckets) and account-buckets read.
    const scopeKeys = new Set(accountList.map((account) => scopeKeyOf(dimensions, account))).size
    const bucketsHere = bucketCount(time, period)
    const bucketsThere = other === undefined ? 0 : bucketCount(time, other)
    const rowsEstimate = scopeKeys * bucketsHere
    if (rowsEstimate > MAX_REPORT_ROWS) {
      throw tooLarge(`The report could have ${rowsEstimate} rows (${bucketsHere} ${time ?? 'period'} bucket(s) × ${scopeKeys} platform/brand/account value(s)), over the limit of ${MAX_REPORT_ROWS}: narrow the period, the filters (brand_id, account_id, platform) or use a coarser time dimension`,
        { limit: MAX_REPORT_ROWS, rows_estimate: rowsEstimate })
    }
    const accountBuckets = accountList.length * (bucketsHere + bucketsThere)
    if (accountBuckets > MAX_ACCOUNT_BUCKETS) {
      throw tooLarge(`The report would read ${accountBuckets} account-buckets (${accountList.length} accounts × ${bucketsHere + bucketsThere} buckets), over the limit of ${MAX_ACCOUNT_BUCKETS}: narrow the period, the filters (brand_id, account_id, platform) or use a coarser time dimension`,
        { limit: MAX_ACCOUNT_BUCKETS, account_buckets: accountBuckets })
    }

    const days = periodDays(period) + (other === undefined ? 0 : periodDays(other))
    const heavy = !empty && scope.brandIds.length * days > store.heavy.brandDays
    const inLane = heavy ? store.heavy.admit : async <T>(work: () => Promise<T>) => await work()
    const columns = columnsOfMetrics(request.metrics)
    const ruled = ruledMetricsOf(request.metrics)
    // Each account-bucket's last followers are read only for a stock (the catalogue's kind).
    const lastFollowers = request.metrics.some((metric) => metricDefinition(metric)?.kind === 'stock')
    return await inLane(async () => {
      const read = async (within: Period): Promise<PeriodRead> => {
        if (request.gaps === 'carry') {
          const days = empty ? { accounts: new Map(), rowsRead: 0 } : await readPeriodAccountDays(store, scope, within, ruled, heavy)
          return carriedRead(days, accounts, within, ruled)
        }
        const rows = empty ? [] : await readRows<AccountBucketRow>(store, buildAccountBucketsQuery(store.db, { dialect: store.dialect, scope, period: within, dimension: time, columns, lastFollowers }), heavy)
        return summedRead(rows, accounts)
      }
      const here = await read(period)
      const there = other === undefined ? undefined : await read(other)
      return shape({ request, scope, accountList, here, there, other, rowsEstimate, heavy })
    })
  }

  return {
    run: async (scope, request) => await deps.store.reads.run(async (store) => await run(store, scope, request)),
  }
}

interface ShapeInput {
  request: ReportRequest
  scope: Scope
  accountList: readonly Account[]
  here: PeriodRead
  there: PeriodRead | undefined
  other: Period | undefined
  rowsEstimate: number
  heavy: boolean
}

function shape (input: ShapeInput): ReportResult {
  const { request, accountList, here, there, other } = input
  const { dimensions, metrics, period } = request
  const time = timeDimensionOf(dimensions)
  const buckets = bucketsOf(time, period)
  const groups = here.groups(buckets, dimensions)
  const expected = request.withStatus ? expectedDays(accountList, buckets, dimensions) : undefined

  const otherBuckets = other === undefined ? undefined : bucketsOf(time, other)
  const otherGroups = otherBuckets === undefined || there === undefined ? undefined : there.groups(otherBuckets, dimensions)
  const otherExpected = otherBuckets === undefined ? undefined : expectedDays(accountList, otherBuckets, dimensions)

  const shaped: ShapedRow[] = []
  for (const group of groups.values()) {
    const row: ReportRow = { keys: group.keys, metrics: figures(metrics, group.basis, group.bucket.days, group.platform) }
    if (expected !== undefined) row.status = { accountsExpected: expected.get(group.key) ?? 0, accountsReported: daysReportedOf(group.basis) }
    if (otherBuckets !== undefined && otherGroups !== undefined && otherExpected !== undefined) {
      const bucket = otherBuckets[group.bucket.position]
      if (bucket === undefined) row.comparison = null
      else {
        const matched = otherGroups.get(group.key)
        const values = figures(metrics, matched?.basis ?? emptyBasis(request), bucket.days, group.platform)
        const wanted = otherExpected.get(group.key) ?? 0
        const complete = wanted > 0 && (matched === undefined ? 0 : daysReportedOf(matched.basis)) === wanted
        const change: Record<string, number | null> = {}
        const relativeChange: Record<string, number | null> = {}
        for (const metric of metrics) {
          const { absolute, relative } = complete ? changeOf(metric, row.metrics[metric] ?? null, values[metric] ?? null) : { absolute: null, relative: null }
          change[metric] = absolute
          relativeChange[metric] = relative
        }
        row.comparison = { ...(time === undefined ? {} : { time: bucket.label }), complete, metrics: values, change, relativeChange }
      }
    }
    shaped.push({ row, position: group.bucket.position })
  }
  shaped.sort((a, b) => compareRows(request, a, b))

  const end = request.offset + request.limit
  const page = shaped.slice(request.offset, end).map((item) => item.row)
  const accountDaysRead = here.accountDaysRead + (there?.accountDaysRead ?? 0)
  const result: ReportResult = {
    period,
    dimensions,
    metrics,
    brandIds: input.scope.brandIds,
    platforms: request.platforms,
    rows: page,
    totalRows: shaped.length,
    nextOffset: end < shaped.length ? end : undefined,
    cost: { rowsEstimate: input.rowsEstimate, accountDaysRead, heavy: input.heavy },
  }
  if (request.withTotals) result.totals = figures(metrics, here.totals(), periodDays(period), undefined)
  if (other !== undefined && there !== undefined) {
    result.comparison = { period: other }
    if (request.withTotals) result.comparison.totals = figures(metrics, there.totals(), periodDays(other), undefined)
  }
  return result
}
