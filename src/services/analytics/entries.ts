import type { Entry, GroupRow, Grouping, ReportType } from '../../domain/analytics.js'
import { daysBetween, lastDayOfMonth } from '../../domain/dates.js'
import type { Period } from '../../domain/period.js'
import { PLATFORM_CODES, type PlatformCode } from '../../domain/platforms.js'
import type { Scope } from '../../domain/scope.js'
import { writeMetricFields, type EntryContext } from './metrics.js'

/**
 * One summed group → one API entry: its key fields (date / month), its metadata (docs/api-reference.md "GET /analytics/":
 * platform, brand_id, account_id + account_name, or the agg names) and its metric fields.
 */

export interface EntryInput {
  report: ReportType
  grouping: Omit<Grouping, 'bucket'>
  scope: Scope
  period: Period
  /** Brand names by id (agg entries grouped by brand carry `name`). */
  brandNames: ReadonlyMap<number, string>
}

/** Days of a `YYYY-MM` month that fall inside the period. */
export function daysOfMonthInPeriod (month: string, period: Period): number {
  const first = `${month}-01`
  const last = lastDayOfMonth(month)
  const from = first > period.since ? first : period.since
  const to = last < period.until ? last : period.until
  return daysBetween(from, to) + 1
}

export function toEntry (row: GroupRow, input: EntryInput): Entry {
  const { report, grouping, scope, period } = input
  const platform: PlatformCode | undefined = grouping.byPlatform ? PLATFORM_CODES[Number(row.platform_rank)] : undefined
  const days = report === 'monthly' ? daysOfMonthInPeriod(row.bucket, period) : report === 'agg' ? daysBetween(period.since, period.until) + 1 : 1
  const entry: Entry = {}
  if (report === 'daily') entry.date = row.bucket
  if (report === 'monthly') entry.month = row.bucket
  if (platform !== undefined) entry.platform = platform
  const groupId = Number(row.group_id)
  if (grouping.by === 'brand') {
    entry.brand_id = groupId
    if (report === 'agg') entry.name = input.brandNames.get(groupId) ?? null
  }
  if (grouping.by === 'account' && scope.kind === 'accounts') {
    const account = scope.accounts.find((candidate) => Number(candidate.account_id) === groupId)
    entry.account_id = groupId
    if (report === 'agg') {
      entry.name = account?.account_name ?? null
      entry.network_id = account?.network_id ?? null
      entry.storage_avatar = account?.storage_avatar ?? null
      entry.permalink = account?.permalink ?? null
    } else {
      entry.account_name = account?.account_name ?? null
    }
  }
  return writeMetricFields(entry, row, { report, platform, days })
}

/**
 * An entry as the wire writes it. The entry holds only the contract's fields, in its order, so
 * JSON.stringify writes what the route's schema serializer would (test/analytics/rendered-entries.test.ts).
 */
export function entryJson (entry: Entry): string {
  return JSON.stringify(entry)
}

const BRAND_DAY: EntryContext = { report: 'daily', platform: undefined, days: 1 }

/**
 * The daily entry of a brand over every platform — which depends on that brand-day's sums and
 * nothing else — as JSON: what the read model stores in brand_daily.entry_json. The same fields,
 * in the same order, as toEntry gives a daily entry grouped by brand.
 *
 * Given a brand-month (bucket `YYYY-MM`), the monthly entry of that brand for a period covering
 * the whole month — which depends on the month's sums and its length only: what the read model
 * stores in brand_monthly.entry_json. The same text toEntry and entryJson give it.
 */
export function renderBrandDayEntry (row: GroupRow): string {
  if (row.bucket.length === 7) {
    const month: EntryContext = { report: 'monthly', platform: undefined, days: daysBetween(`${row.bucket}-01`, lastDayOfMonth(row.bucket)) + 1 }
    return entryJson(writeMetricFields({ month: row.bucket, brand_id: Number(row.group_id) }, row, month))
  }
  return entryJson(writeMetricFields({ date: row.bucket, brand_id: Number(row.group_id) }, row, BRAND_DAY))
}
