import { Type, type Static, type TInteger, type TOptional } from '@sinclair/typebox'
import { REPORT_TYPES } from '../../domain/analytics.js'
import { GAPS_MODES } from '../../domain/gaps/modes.js'
import { REPORTED_METRICS } from '../../domain/metric-catalog.js'
import { PLATFORM_METRICS, PLATFORM_METRIC_NAMES, type PlatformMetric } from '../../domain/metrics.js'
import { MAX_PERIOD_DAYS } from '../../domain/period.js'
import { PLATFORM_CODES } from '../../domain/platforms.js'
import { component } from './components.js'
import { DateMember } from './formats.js'
import { CursorParam, DateParam, FlagParam, IdListParam, PlatformListParam, StringEnum } from './params.schemas.js'

/**
 * GET /analytics/: the query and the three reports' shapes (docs/api-reference.md "GET /analytics/"), for
 * validation, serialization (property order = output order) and the OpenAPI document. Fields that
 * every entry of a report carries are required; the rest depend on the query (docs/api-reference.md "GET /analytics/").
 */

/**
 * The period and scope parameters, shared by every route that reads a period of the brands or
 * accounts in scope (/analytics/, /data-status): the same rules, defaults and limits.
 */
export const PeriodScopeParams = {
  since: Type.Optional(DateParam('Start of the period, inclusive; default until (or today, if earlier) minus 7 days')),
  until: Type.Optional(DateParam(`End of the period, inclusive; default today (UTC). At most ${MAX_PERIOD_DAYS} days from since, inclusive`)),
  brand_id: Type.Optional(IdListParam('Brands to report on; default every accessible brand')),
  account_id: Type.Optional(IdListParam('Accounts to report on, on the one platform given')),
  platform: Type.Optional(PlatformListParam),
}

/** What `include` may add to a report: a comma list, so that more can come. */
export const INCLUDE_VALUES = ['status'] as const

export const AnalyticsQuery = Type.Object({
  type: StringEnum(REPORT_TYPES, { title: 'report type', default: 'daily', description: 'daily (default), monthly or agg; case-sensitive' }),
  ...PeriodScopeParams,
  split_by_platform: FlagParam('Group by platform only, summed across every brand in scope'),
  cursor: Type.Optional(CursorParam('type=daily only: next_cursor of the previous page of this same query')),
  include: Type.Optional(Type.Array(StringEnum(INCLUDE_VALUES, { title: 'include', description: `use ${INCLUDE_VALUES.join(', ')}` }), {
    description: 'Comma-separated extras for each entry, case-insensitive. `status`: how complete the entry\'s data is (accounts_expected, accounts_reported, metrics_reported, metrics_expected)',
    examples: [['status']],
  })),
  gaps: Type.Optional(StringEnum(GAPS_MODES, {
    title: 'gaps',
    description: 'How an account that did not report a day is treated (docs: Missing data); case-sensitive. `zero` (default): today\'s figures, a missing account adds nothing. ' +
      '`carry`: a stock (followers) takes the account\'s last value reported on or before the day, inside its coverage; a flow is never invented; ' +
      'a rate (engagement_rate, interaction_rate, posts_per_day) is computed only over the account-days that reported both its parts. With include=status each entry also has `gaps`',
  })),
})
export type AnalyticsQuery = Static<typeof AnalyticsQuery>

const count = (description: string) => Type.Integer({ description })
const optionalCount = (description: string) => Type.Optional(count(description))

/** The metric fields every entry carries, in the contract's order (revenue: see `revenueOf`). */
function coreMetrics (report: 'daily' | 'monthly' | 'agg') {
  return {
    views: count('Sum of views'),
    followers: count(report === 'daily'
      ? 'Sum of the day\'s followers'
      : 'Sum over accounts of each account\'s last followers value reported in the window'),
    new_followers: count('Sum of followers gained'),
    posts_count: count('Sum of posts published'),
    posts_per_day: Type.Number({ description: report === 'daily' ? 'Equals posts_count' : 'posts_count / days of the window inside the period, 2 decimals' }),
    interactions: count('Sum of interactions'),
    engagement_rate: Type.Number({ description: 'interactions / (reach of fb, ig, sc, li rows + views of the other platforms\' rows), 6 decimals; 0 when the denominator is 0; a ratio, not a percentage' }),
    interaction_rate: Type.Number({ description: 'Same value as engagement_rate' }),
  }
}

/** Daily and monthly revenue is 0 when nothing was reported; agg's is null. */
const reportedRevenue = Type.Number({ description: 'Sum of reported revenue, 2 decimals; 0 when nothing was reported' })
const aggRevenue = Type.Union([Type.Number(), Type.Null()], { description: 'Sum of reported revenue, 2 decimals; null when nothing was reported' })

/** Platform-specific fields: present when they apply to a platform in the entry's scope (ad_reach: daily only). */
function platformMetrics (report: 'daily' | 'monthly' | 'agg') {
  return Object.fromEntries(PLATFORM_METRIC_NAMES
    .filter((metric) => metric !== 'ad_reach' || report === 'daily')
    .map((metric) => [metric, optionalCount(`Platforms: ${PLATFORM_METRICS[metric].join(', ')}`)])) as Record<PlatformMetric, TOptional<TInteger>>
}

/** Counts per metric of the entry (the metrics accounts report, not the derived ones), in the entry's order. */
export const MetricCounts = component('MetricCounts', Type.Object(Object.fromEntries(REPORTED_METRICS.map((metric) =>
  [metric, Type.Optional(Type.Integer({ minimum: 0 }))])), {
  description: 'include=status, one count per metric the entry carries (not the derived posts_per_day, engagement_rate, interaction_rate). ' +
    'metrics_reported: how many of the reporting account-days (daily entries: accounts) reported the metric (not null); ' +
    'metrics_expected: how many of them are on a platform that has the metric',
}))

/** include=status with gaps=carry: what the gap rules did for one metric of an entry. */
export const MetricGaps = component('MetricGaps', Type.Object({
  carried: Type.Integer({ minimum: 0, description: 'Accounts whose value stands on a day they did not report it, carried from their last report on or before it (stocks; 0 for flows and rates)' }),
  missing: Type.Array(Type.Object({
    platform: StringEnum(PLATFORM_CODES),
    account_id: Type.Integer(),
    days: Type.Integer({ minimum: 1, description: 'Days of the entry\'s window inside the account\'s coverage on which it did not report the metric' }),
  }), { description: 'Accounts of the entry\'s group, on a platform that has the metric, that did not report it on some day of the window inside their coverage; by platform, then account' }),
}))

const entryGaps = () => Type.Optional(Type.Record(Type.String(), MetricGaps, {
  description: 'include=status with gaps=carry, one member per metric counted by metrics_reported: what the gap rules did for it',
}))

/** include=status: appended to each entry, after its metrics (docs/api-reference.md "Completeness"). */
function statusFields (report: 'daily' | 'monthly' | 'agg') {
  const [expected, reported] = STATUS_TEXT[report]
  return {
    accounts_expected: Type.Optional(Type.Integer({ minimum: 0, description: `include=status: ${expected}` })),
    accounts_reported: Type.Optional(Type.Integer({ minimum: 0, description: `include=status: ${reported}` })),
    // MetricCounts is one shared component: what each count means is said there and in the reference.
    metrics_reported: Type.Optional(MetricCounts),
    metrics_expected: Type.Optional(MetricCounts),
    ...(report === 'monthly'
      ? {
          account_days_expected: Type.Optional(Type.Integer({ minimum: 0, description: 'include=status: account-days of the month (inside the period) inside the coverage of each account of the group, summed' })),
          account_days_reported: Type.Optional(Type.Integer({ minimum: 0, description: 'include=status: those account-days with data' })),
        }
      : {}),
    gaps: entryGaps(),
  }
}

const STATUS_TEXT = {
  daily: ['accounts of the entry\'s group whose coverage (first to last day with data) includes the day', 'those of them with data that day'],
  monthly: ['accounts of the entry\'s group whose coverage meets the month (its days inside the period)', 'those of them with data in it'],
  agg: ['account-days: days of the period inside the coverage of each account of the entry\'s group, summed', 'account-days with data'],
} as const

const platformField = Type.Optional(Type.String({ description: 'Platform code, when platform was given or split_by_platform=true' }))
const brandField = Type.Optional(Type.Integer({ description: 'When grouped by brand (no account_id, not split by platform)' }))
const accountField = Type.Optional(Type.Integer({ description: 'When account_id was given (not split by platform)' }))
const accountNameField = Type.Optional(Type.String({ description: 'With account_id' }))

export const DailyEntry = component('DailyEntry', Type.Object({
  date: DateMember('YYYY-MM-DD'),
  platform: platformField,
  brand_id: brandField,
  account_id: accountField,
  account_name: accountNameField,
  revenue: reportedRevenue,
  ...coreMetrics('daily'),
  ...platformMetrics('daily'),
  ...statusFields('daily'),
}))

export const MonthlyEntry = component('MonthlyEntry', Type.Object({
  month: Type.String({ description: 'YYYY-MM' }),
  platform: platformField,
  brand_id: brandField,
  account_id: accountField,
  account_name: accountNameField,
  revenue: reportedRevenue,
  ...coreMetrics('monthly'),
  ...platformMetrics('monthly'),
  ...statusFields('monthly'),
}))

const nullableText = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }))

export const AggEntry = component('AggEntry', Type.Object({
  platform: platformField,
  brand_id: brandField,
  account_id: accountField,
  name: nullableText('Brand name (grouped by brand) or account name (grouped by account)'),
  network_id: nullableText('Grouped by account: platform-specific identifier'),
  storage_avatar: nullableText('Grouped by account: avatar URL'),
  permalink: nullableText('Grouped by account: profile URL'),
  revenue: aggRevenue,
  ...coreMetrics('agg'),
  ...platformMetrics('agg'),
  ...statusFields('agg'),
}))

export const AggregateFigures = component('AggregateFigures', Type.Object({
  views: Type.Number(),
  revenue: Type.Union([Type.Number(), Type.Null()], { description: 'null when every entry\'s revenue is null' }),
  interactions: Type.Number(),
  posts_count: Type.Number(),
  new_followers: Type.Number(),
  followers: Type.Number(),
  posts_per_day: Type.Number(),
}))

/** The members every report envelope has, after `data` and `total`. */
const envelopeTail = {
  since: DateMember('Start of the period, YYYY-MM-DD'),
  until: DateMember('End of the period, YYYY-MM-DD'),
  platforms: Type.Union([Type.Array(Type.String()), Type.Literal('all')], { description: 'Requested platform codes in canonical order, or "all"' }),
  brand_ids: Type.Array(Type.Integer(), { description: 'Brands in scope, ascending' }),
  brand_id: Type.Optional(Type.Integer({ description: 'When exactly one brand_id was given' })),
}

/** include=status, last on every envelope: how far the data reaches (docs/api-reference.md "Completeness"). */
const throughMembers = {
  data_through: Type.Optional(Type.Union([DateMember('YYYY-MM-DD'), Type.Null()], {
    description: 'include=status: the last day any account in scope has data for; null when none has any',
  })),
  not_synced: Type.Optional(Type.Union([Type.Object({ since: DateMember('YYYY-MM-DD'), until: DateMember('YYYY-MM-DD') }), Type.Null()], {
    description: 'include=status: the days of the period after data_through (not yet synced, or in the future: never counted as missing), or null when the period ends on or before it',
  })),
}

export const DailyReport = component('DailyReport', Type.Object({
  data: Type.Array(DailyEntry),
  total: Type.Integer({ description: 'Entries on this page (at most 20)' }),
  ...envelopeTail,
  next_cursor: Type.Optional(Type.String({ description: 'Present only when another page exists: pass it as cursor' })),
  ...throughMembers,
}))

export const MonthlyReport = component('MonthlyReport', Type.Object({
  data: Type.Array(MonthlyEntry),
  total: Type.Integer({ description: 'Entries (every month of the period)' }),
  ...envelopeTail,
  ...throughMembers,
}))

export const AggReport = component('AggReport', Type.Object({
  data: Type.Array(AggEntry),
  total: Type.Integer({ description: 'Entries' }),
  aggregates: Type.Object({
    total: AggregateFigures,
    average: AggregateFigures,
  }, { description: 'Sums of the entries\' figures, and those sums divided by the number of entries' }),
  ...envelopeTail,
  ...throughMembers,
}))

/** The documented 200 body: one of the three reports, by `type`. */
export const AnalyticsResponse = Type.Union([DailyReport, MonthlyReport, AggReport], { description: 'type=daily: DailyReport; type=monthly: MonthlyReport; type=agg: AggReport' })
export type DailyReport = Static<typeof DailyReport>
export type MonthlyReport = Static<typeof MonthlyReport>
export type AggReport = Static<typeof AggReport>
