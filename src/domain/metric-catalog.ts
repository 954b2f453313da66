import { REPORT_TYPES, type ReportType } from './analytics.js'
import { type CORE_COUNT_METRICS, ENGAGEMENT_DENOMINATOR, PLATFORM_METRICS, PLATFORM_METRIC_NAMES } from './metrics.js'
import { PLATFORM_CODES, PLATFORM_DISPLAY_NAMES, type PlatformCode } from './platforms.js'

/**
 * The one description of every metric an analytics entry can carry (GET /catalog/metrics,
 * docs/api-reference.md "Metric catalogue"): what it means, its unit, which platforms report it,
 * how it combines over days and over accounts, and in which reports it appears. It is built on
 * metrics.ts (which platform has which field) and lists the metrics in the order the reports
 * write them; test/catalog/metric-catalog.test.ts holds the reports' real entries and schemas to it.
 */

/** count: an integer; currency: stored in micro-units, shown as a decimal with 2 places; ratio: a quotient. */
export type MetricUnit = 'count' | 'currency' | 'ratio'

/**
 * How a figure of several days (or accounts) is made from the days' (accounts') values:
 * summed; the last value reported inside the window (followers); or a ratio of two sums.
 */
export type Combination = 'sum' | 'last' | 'ratio'

/**
 * What a metric measures, which decides how it combines and how a missing day is treated
 * (src/domain/gaps/): a flow counts what happened during a day (views, revenue: summed, never
 * invented for a day not reported); a stock is a level at the end of a day (followers: not summed
 * over days; a day not reported may take the account's last reported level); a rate divides two
 * other figures (`ratio_of`), and only over the account-days that reported both.
 */
export type MetricKind = 'flow' | 'stock' | 'rate'
export const METRIC_KINDS = ['flow', 'stock', 'rate'] as const satisfies readonly MetricKind[]

/** Whether summing the values of several days (accounts) gives the figure of them all. */
export interface Additivity {
  overDays: boolean
  overAccounts: boolean
}

/** The additivity each kind has: a flow sums both ways, a stock only over accounts, a rate neither. */
export const KIND_ADDITIVITY: Readonly<Record<MetricKind, Additivity>> = {
  flow: { overDays: true, overAccounts: true },
  stock: { overDays: false, overAccounts: true },
  rate: { overDays: false, overAccounts: false },
}

export interface RatioInputs {
  /** A metric of the catalogue. */
  numerator: string
  /**
   * A metric of the catalogue; `days` (days of the entry's window inside the period); or
   * `reach_or_views` (each row's reach or views by its platform: `denominatorByPlatform`).
   */
  denominator: string
  denominatorByPlatform?: Readonly<Record<PlatformCode, string>>
}

export interface MetricDefinition {
  name: string
  /** A short label for a column or a chart. */
  label: string
  description: string
  unit: MetricUnit
  /** Flow, stock or rate (MetricKind): how it combines and how a missing day is treated. */
  kind: MetricKind
  /** Decimals of the value on the wire (0 for integers). */
  decimals: number
  /** The platforms whose accounts report it (or, for a derived metric, report its inputs). */
  platforms: readonly PlatformCode[]
  /** Reports whose entries carry it. */
  reports: readonly ReportType[]
  overDays: Combination
  overAccounts: Combination
  /** Derived metrics only: what divides what. */
  ratioOf?: RatioInputs
  /** A second name for the same value. */
  sameAs?: string
  /**
   * Whether accounts report it per day (a column of the daily rows), as opposed to being
   * derived from other metrics. Only these are counted by `include=status`'s metrics_reported.
   */
  reported: boolean
  /** The value of an entry none of whose account-days reported it, by report. */
  noneReported: Readonly<Record<ReportType, number | null>>
}

const EVERY_REPORT = REPORT_TYPES
const ZERO = { daily: 0, monthly: 0, agg: 0 } as const
const EVERY_PLATFORM = PLATFORM_CODES

function platformNames (codes: readonly PlatformCode[]): string {
  return codes.length === PLATFORM_CODES.length ? 'every platform' : codes.map((code) => PLATFORM_DISPLAY_NAMES[code]).join(', ')
}

/** Labels and meanings of the platform-specific fields (docs/api-reference.md's table). */
const PLATFORM_METRIC_TEXT: Record<(typeof PLATFORM_METRIC_NAMES)[number], [string, string]> = {
  video_views_3s: ['Video views (3 s)', 'Video views of at least 3 seconds'],
  video_views_2s: ['Video views (2 s)', 'Video views of at least 2 seconds'],
  views_video: ['Video views', 'Video views, counted by the platform\'s own threshold'],
  reach: ['Reach', 'Unique people reached'],
  impressions: ['Impressions', 'Times content was displayed'],
  ad_reach: ['Ad reach', 'Unique people reached by paid content'],
  likes: ['Likes', 'Likes and similar reactions'],
  shares: ['Shares', 'Shares or reposts'],
  comments: ['Comments', 'Comments'],
  views_organic: ['Organic video views', 'Video views not paid for'],
  views_paid: ['Paid video views', 'Video views bought through ads'],
  link_clicks: ['Link clicks', 'Clicks on links'],
}

const CORE_TEXT: Record<(typeof CORE_COUNT_METRICS)[number], [string, string]> = {
  views: ['Views', 'Views of the account\'s content'],
  followers: ['Followers', 'Followers at the end of the day. Over several days, each account\'s last value reported inside the window, summed over the accounts'],
  new_followers: ['New followers', 'Followers gained during the day'],
  posts_count: ['Posts', 'Posts published'],
  interactions: ['Interactions', 'Likes, comments, shares and similar'],
}

function core (name: (typeof CORE_COUNT_METRICS)[number]): MetricDefinition {
  const [label, description] = CORE_TEXT[name]
  const last = name === 'followers'
  return { name, label, description, unit: 'count', kind: last ? 'stock' : 'flow', decimals: 0, platforms: EVERY_PLATFORM, reports: EVERY_REPORT, overDays: last ? 'last' : 'sum', overAccounts: 'sum', reported: true, noneReported: ZERO }
}

function platformSpecific (name: (typeof PLATFORM_METRIC_NAMES)[number]): MetricDefinition {
  const [label, meaning] = PLATFORM_METRIC_TEXT[name]
  const platforms = PLATFORM_METRICS[name]
  const dailyOnly = name === 'ad_reach'
  return {
    name,
    label,
    description: `${meaning} (${platformNames(platforms)}${dailyOnly ? '; daily entries only' : ''})`,
    unit: 'count',
    kind: 'flow',
    decimals: 0,
    platforms,
    reports: dailyOnly ? ['daily'] : EVERY_REPORT,
    overDays: 'sum',
    overAccounts: 'sum',
    reported: true,
    noneReported: ZERO,
  }
}

const ENGAGEMENT: RatioInputs = { numerator: 'interactions', denominator: 'reach_or_views', denominatorByPlatform: ENGAGEMENT_DENOMINATOR }
const REACH_PLATFORMS = PLATFORM_CODES.filter((code) => ENGAGEMENT_DENOMINATOR[code] === 'reach')
const ENGAGEMENT_TEXT = `interactions divided by the sum of reach on ${platformNames(REACH_PLATFORMS)} rows and of views on the other platforms' rows, 6 decimals, 0 when that sum is 0; a ratio (0.0345 is 3.45 %)`

const ENGAGEMENT_RATE: MetricDefinition = {
  name: 'engagement_rate',
  label: 'Engagement rate',
  description: `Engagement rate: ${ENGAGEMENT_TEXT}`,
  unit: 'ratio',
  kind: 'rate',
  decimals: 6,
  platforms: EVERY_PLATFORM,
  reports: EVERY_REPORT,
  overDays: 'ratio',
  overAccounts: 'ratio',
  ratioOf: ENGAGEMENT,
  reported: false,
  noneReported: ZERO,
}

/** The catalogue, in the order an entry writes its metric fields. */
export const METRIC_CATALOG: readonly MetricDefinition[] = [
  {
    name: 'revenue',
    label: 'Revenue',
    description: 'Revenue reported, summed exactly and rounded half-up to 2 decimals',
    unit: 'currency',
    kind: 'flow',
    decimals: 2,
    platforms: EVERY_PLATFORM,
    reports: EVERY_REPORT,
    overDays: 'sum',
    overAccounts: 'sum',
    reported: true,
    noneReported: { daily: 0, monthly: 0, agg: null },
  },
  core('views'),
  core('followers'),
  core('new_followers'),
  core('posts_count'),
  {
    name: 'posts_per_day',
    label: 'Posts per day',
    description: 'posts_count divided by the days of the entry\'s window inside the period, 2 decimals (a daily entry: equals posts_count)',
    unit: 'ratio',
    kind: 'rate',
    decimals: 2,
    platforms: EVERY_PLATFORM,
    reports: EVERY_REPORT,
    overDays: 'ratio',
    overAccounts: 'ratio',
    ratioOf: { numerator: 'posts_count', denominator: 'days' },
    reported: false,
    noneReported: ZERO,
  },
  core('interactions'),
  ENGAGEMENT_RATE,
  // The contract's alias: the same value under another name.
  { ...ENGAGEMENT_RATE, name: 'interaction_rate', label: 'Interaction rate', description: 'The same value as engagement_rate', sameAs: 'engagement_rate' },
  ...PLATFORM_METRIC_NAMES.map(platformSpecific),
]

/** The metrics accounts report per day (daily_metrics columns), in catalogue order. */
export const REPORTED_METRICS: readonly string[] = METRIC_CATALOG.filter((metric) => metric.reported).map((metric) => metric.name)

export function metricDefinition (name: string): MetricDefinition | undefined {
  return METRIC_CATALOG.find((metric) => metric.name === name)
}

/** The metric's additivity over days and over accounts (from its kind). */
export function additivityOf (metric: MetricDefinition): Additivity {
  return KIND_ADDITIVITY[metric.kind]
}

/** The catalogue's metrics of one kind, in catalogue order (`sameAs` aliases left out). */
export function metricsOfKind (kind: MetricKind): MetricDefinition[] {
  return METRIC_CATALOG.filter((metric) => metric.kind === kind && metric.sameAs === undefined)
}

/** The metric's kind; undefined for a name the catalogue does not have. */
export function kindOf (name: string): MetricKind | undefined {
  return metricDefinition(name)?.kind
}
