import { throughOf, type DataThrough, type EntryKey, type EntryStatus, type Grouping, type ReportType } from '../../domain/analytics.js'
import { lastDayOfMonth } from '../../domain/dates.js'
import { REPORTED_METRICS } from '../../domain/metric-catalog.js'
import type { Period } from '../../domain/period.js'
import { PLATFORM_CODES } from '../../domain/platforms.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import { buildDataThroughQuery } from '../../storage/queries/account-days.query.js'
import { buildEntryStatusQuery, type StatusCountRow, type StatusWindow } from '../../storage/queries/entry-status.query.js'
import { readRows } from '../../storage/queries/status-sql.js'
import { platformFieldsFor } from './metrics.js'

/**
 * include=status (docs/api-reference.md "Completeness"): the completeness of each entry of a
 * report, read by a statement of its own after the report (the report's numbers are untouched),
 * for exactly the report's buckets: a daily page's days and groups, the months, or the period.
 */

export interface StatusInput {
  report: ReportType
  scope: Scope
  grouping: Omit<Grouping, 'bucket'>
  period: Period
  /** The entries' keys, in the entries' order. */
  keys: readonly EntryKey[]
  /** Run the statement where heavy statements run (the report is in the heavy lane). */
  heavy: boolean
}

const keyOf = (key: EntryKey): string => `${key.bucket}|${Number(key.group_id)}|${Number(key.platform_rank)}`

/** The report's time windows inside the period, one per bucket of its entries. */
function windowsOf (report: ReportType, keys: readonly EntryKey[], period: Period): StatusWindow[] {
  if (report === 'agg') return [{ bucket: '', from: period.since, to: period.until }]
  const buckets = [...new Set(keys.map((key) => key.bucket))]
  if (report === 'daily') return buckets.map((date) => ({ bucket: date, from: date, to: date }))
  return buckets.map((month) => {
    const first = `${month}-01`
    const last = lastDayOfMonth(month)
    return { bucket: month, from: first > period.since ? first : period.since, to: last < period.until ? last : period.until }
  })
}

/** The reported metrics an entry carries (its platform-specific ones by its platform), in catalogue order. */
function metricsOf (report: ReportType, key: EntryKey, grouping: Omit<Grouping, 'bucket'>): string[] {
  const platform = grouping.byPlatform ? PLATFORM_CODES[Number(key.platform_rank)] : undefined
  const present = new Set<string>(platformFieldsFor(report, platform))
  return REPORTED_METRICS.filter((metric) => present.has(metric) || !PLATFORM_FIELD_NAMES.has(metric))
}

const PLATFORM_FIELD_NAMES = new Set<string>(platformFieldsFor('daily', undefined))

function statusOf (report: ReportType, metrics: readonly string[], row: StatusCountRow | undefined): EntryStatus {
  const count = (column: string): number => row === undefined ? 0 : Number(row[column] ?? 0)
  const byAccountDays = report === 'agg'
  return {
    accounts_expected: count(byAccountDays ? 'account_days_expected' : 'accounts_expected'),
    accounts_reported: count(byAccountDays ? 'account_days_reported' : 'accounts_reported'),
    metrics_reported: Object.fromEntries(metrics.map((metric) => [metric, count(`r_${metric}`)])),
    metrics_expected: Object.fromEntries(metrics.map((metric) => [metric, count(`e_${metric}`)])),
    // A month's accounts alone would call a month in which an account missed 8 days complete.
    ...(report === 'monthly' ? { account_days_expected: count('account_days_expected'), account_days_reported: count('account_days_reported') } : {}),
  }
}

/** One EntryStatus per key, in the keys' order. */
export async function readEntryStatuses (store: Store, input: StatusInput): Promise<EntryStatus[]> {
  const { report, scope, grouping, period, keys, heavy } = input
  if (keys.length === 0) return []
  const query = buildEntryStatusQuery(store.db, {
    dialect: store.dialect,
    scope,
    grouping,
    windows: windowsOf(report, keys, period),
    groupIds: report === 'daily' ? [...new Set(keys.map((key) => Number(key.group_id)))] : undefined,
  })
  const rows = new Map((await readRows<StatusCountRow>(store, query, heavy)).map((row) => [keyOf(row), row]))
  return keys.map((key) => statusOf(report, metricsOf(report, key, grouping), rows.get(keyOf(key))))
}

/** include=status on the envelope: the scope's last day with data, and the part of the period after it. */
export async function readDataThrough (store: Store, scope: Scope, period: Period): Promise<DataThrough> {
  if (scope.brandIds.length === 0) return throughOf(period, null)
  const [row] = await readRows<{ last: string | null }>(store, buildDataThroughQuery(store.db, scope), false)
  return throughOf(period, row?.last ?? null)
}
