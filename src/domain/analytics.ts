import { addDays } from './dates.js'
import type { PlatformCode } from './platforms.js'
import type { Period } from './period.js'
import type { SUMMED_METRICS } from './metrics.js'
import type { GapsMode } from './gaps/modes.js'

/**
 * The analytics report as the service sees it (docs/api-reference.md GET /analytics/, docs/api-reference.md "GET /analytics/"): what is
 * asked, where a daily page ends, the summed groups the store returns, and the report handed
 * back to HTTP. No wire format here: HTTP turns positions into cursors and reports into envelopes.
 */

/** The three reports, in the order the contract's pattern lists them. */
export const REPORT_TYPES = ['daily', 'agg', 'monthly'] as const
export type ReportType = (typeof REPORT_TYPES)[number]

/** Entries per daily page. */
export const DAILY_PAGE_SIZE = 20

/** Where a daily page ends: the sort key of its last entry (what a cursor carries). */
export interface DailyPosition {
  date: string
  /** brand_id or account_id of the entry; 0 when split by platform. */
  groupId: number
  /** Canonical platform index of the entry; 0 when not split by platform. */
  platformRank: number
}

export interface AnalyticsRequest {
  type: ReportType
  period: Period
  brandIds: number[] | undefined
  accountIds: number[] | undefined
  platforms: PlatformCode[] | undefined
  splitByPlatform: boolean
  /** type=daily only: start after this entry (the previous page's last). */
  after?: DailyPosition | undefined
  /** include=status: each entry also says how complete its data is (EntryStatus). */
  withStatus?: boolean | undefined
  /** gaps=: how an account-day not reported is treated (src/domain/gaps/); undefined = zero. */
  gaps?: GapsMode | undefined
}

/** The time bucket of a report: one day, one calendar month, or the whole period. */
export type Bucket = 'day' | 'month' | 'period'

/** What a report groups by (docs/api-reference.md "GET /analytics/", grouping). */
export interface Grouping {
  bucket: Bucket
  /** By brand_id or account_id, or by neither (split_by_platform=true). */
  by: 'brand' | 'account' | 'none'
  /** Separate groups per platform (platform given, or split_by_platform=true). */
  byPlatform: boolean
}

export type SummedMetric = (typeof SUMMED_METRICS)[number]

/** One group as the store returns it: keys, then sums (null when no row reported the metric). */
export type GroupRow = {
  /** Day (`YYYY-MM-DD`), month (`YYYY-MM`) or '' for the whole period. */
  bucket: string
  /** brand_id or account_id; 0 when the report is not grouped by either. */
  group_id: number
  /** Canonical platform index; 0 when the report is not grouped by platform. */
  platform_rank: number
  revenue_micros: number | null
  followers: number | null
  /** Sum of reach (fb, ig, sc, li rows) and views (the other platforms' rows). */
  engagement_denominator: number | null
  /** The brand's name, when the statement read it beside the sums (agg of brands over every platform). */
  brand_name?: string
} & Record<SummedMetric, number | null>

/** The keys of a group: what identifies an entry within its report. */
export type EntryKey = Pick<GroupRow, 'bucket' | 'group_id' | 'platform_rank'>

/**
 * How complete an entry's data is (include=status, docs/api-reference.md "Completeness"). Daily
 * and monthly: accounts of the entry's group whose coverage meets the day or month, and those
 * with a row in it; agg: the same counted in account-days. Per metric of the entry: how many of
 * the reporting account-days (daily: accounts) reported it, and how many of them are on a
 * platform that has it.
 */
export interface EntryStatus {
  accounts_expected: number
  accounts_reported: number
  metrics_reported: Record<string, number>
  metrics_expected: Record<string, number>
  /** Monthly entries: the month's account-days inside the accounts' coverages, and those with a row. */
  account_days_expected?: number
  account_days_reported?: number
  /** gaps=carry only: per metric, accounts carried and accounts missing (EntryGaps). */
  gaps?: EntryGaps
}

/** An account with days in an entry's window (inside its coverage) that did not report a metric. */
export interface MissingAccountDays {
  platform: PlatformCode
  account_id: number
  /** Days of the window inside the account's coverage without the metric. */
  days: number
}

/**
 * include=status with gaps=carry, per reported metric of the entry: how many accounts' values
 * were carried from an earlier day (stocks; 0 for the others), and which accounts missed it.
 */
export type EntryGaps = Record<string, { carried: number, missing: MissingAccountDays[] }>

/** One entry of a report, fields in the contract's order. */
export type Entry = Record<string, string | number | null>

/** The figures of `aggregates.total` and `aggregates.average` (type=agg). */
export interface AggregateFigures {
  views: number
  revenue: number | null
  interactions: number
  posts_count: number
  new_followers: number
  followers: number
  posts_per_day: number
}

interface ReportBase {
  period: Period
  /** include=status: one per entry, in the entries' order. */
  statuses?: EntryStatus[] | undefined
  /** The requested platform codes, or undefined for every platform. */
  platforms: PlatformCode[] | undefined
  /** The brands in scope, ascending. */
  brandIds: number[]
  /** Set when exactly one brand_id was given. */
  singleBrandId: number | undefined
  /** include=status: how far the scope's data reaches (DataThrough); undefined without it. */
  through?: DataThrough | undefined
}

/**
 * include=status, on the envelope: the last day any account in scope has a row for (null: none),
 * and the part of the period after it, not yet synced (null when the period ends on or before it).
 */
export interface DataThrough {
  dataThrough: string | null
  notSynced: { since: string, until: string } | null
}

/** The part of a period after the last day with data (all of it when there is none). */
export function throughOf (period: Period, dataThrough: string | null): DataThrough {
  if (dataThrough !== null && dataThrough >= period.until) return { dataThrough, notSynced: null }
  const since = dataThrough === null || dataThrough < period.since ? period.since : addDays(dataThrough, 1)
  return { dataThrough, notSynced: { since, until: period.until } }
}

/**
 * A daily page. Its entries come as JSON text, each exactly what the wire shows: a brand-day's
 * entry is rendered once, when the import sums it (docs/storage.md "Read model").
 */
export interface DailyAnalyticsReport extends ReportBase {
  type: 'daily'
  entriesJson: string[]
  /** Set when another page exists (the position of this page's last entry). */
  next?: DailyPosition | undefined
}

/**
 * Every month of the period. Its entries come as JSON text, written where the report was computed
 * (for a heavy report, inside its lane: src/storage/heavy-reads.ts).
 */
export interface MonthlyAnalyticsReport extends ReportBase {
  type: 'monthly'
  entriesJson: string[]
}

export interface AggAnalyticsReport extends ReportBase {
  type: 'agg'
  entries: Entry[]
  aggregates: { total: AggregateFigures, average: AggregateFigures }
}

export type AnalyticsReport = DailyAnalyticsReport | MonthlyAnalyticsReport | AggAnalyticsReport
