import { Type, type Static } from '@sinclair/typebox'
import { GAPS_MODES } from '../../domain/gaps/modes.js'
import { MAX_PERIOD_DAYS } from '../../domain/period.js'
import {
  DEFAULT_REPORT_LIMIT, MAX_REPORT_DIMENSIONS, MAX_REPORT_LIMIT, MAX_REPORT_OFFSET, REPORT_DIMENSIONS, REPORT_METRICS, TIME_DIMENSIONS,
} from '../../domain/reports.js'
import { component } from './components.js'
import { DateMember } from './formats.js'
import { CursorParam, DateParam, IdListParam, PlatformListParam, StringEnum } from './params.schemas.js'

/**
 * POST /reports (and GET /reports, the same request in a query string): the request body, the row
 * and the envelope (docs/reports.md). Property order = output order.
 */

export const REPORT_INCLUDE = ['totals', 'status'] as const
export const COMPARISONS = ['previous_period', 'previous_year'] as const

const GAPS_DESCRIPTION = 'How an account-day that was not reported is treated (docs: Missing data), as gaps= on GET /analytics/. `zero` (default): a missing account adds nothing. ' +
  '`carry`: a stock (followers) takes each account\'s last value reported on or before the bucket\'s last day, inside its coverage; a flow is never invented; ' +
  'a rate is computed only over the account-days that reported both its parts. Rows, totals and comparisons alike'

const MetricName = StringEnum(REPORT_METRICS, { title: 'metric', description: 'a metric of GET /catalog/metrics' })
const DimensionName = StringEnum(REPORT_DIMENSIONS, { title: 'dimension', description: `one of ${REPORT_DIMENSIONS.join(', ')}` })

export const ReportOrderItem = Type.Object({
  metric: Type.Optional(MetricName),
  dimension: Type.Optional(DimensionName),
  desc: Type.Optional(Type.Boolean({ default: false, description: 'Descending (default ascending)' })),
}, { additionalProperties: false, description: 'Exactly one of metric (one of the request\'s metrics) or dimension (one of its dimensions)' })

const PeriodObject = Type.Object({
  since: DateParam('Start of the comparison period, inclusive'),
  until: DateParam('End of the comparison period, inclusive'),
}, { additionalProperties: false })

export const ReportRequestBody = Type.Object({
  metrics: Type.Array(MetricName, { minItems: 1, maxItems: REPORT_METRICS.length, uniqueItems: true, description: 'Metrics of each row, in this order', examples: [['views', 'engagement_rate']] }),
  dimensions: Type.Optional(Type.Array(DimensionName, {
    maxItems: MAX_REPORT_DIMENSIONS,
    uniqueItems: true,
    description: `What rows are split by, at most ${MAX_REPORT_DIMENSIONS}, at most one of ${TIME_DIMENSIONS.join(', ')} (ISO weeks, Monday first). None: one row for the whole scope and period`,
    examples: [['week', 'platform']],
  })),
  since: Type.Optional(DateParam('Start of the period, inclusive; default until (or today, if earlier) minus 7 days')),
  until: Type.Optional(DateParam(`End of the period, inclusive; default today (UTC). At most ${MAX_PERIOD_DAYS} days from since, inclusive`)),
  filters: Type.Optional(Type.Object({
    brand_id: Type.Optional(IdListParam('Brands to report on; default every accessible brand')),
    account_id: Type.Optional(IdListParam('Accounts to report on, on the one platform given')),
    platform: Type.Optional(PlatformListParam),
  }, { additionalProperties: false, description: 'The scope, with the rules of GET /analytics/ (400, 403, 404)' })),
  order_by: Type.Optional(Type.Array(ReportOrderItem, { maxItems: MAX_REPORT_DIMENSIONS + REPORT_METRICS.length, description: 'Row order; ties and the default: the dimensions ascending, in their order' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_REPORT_LIMIT, default: DEFAULT_REPORT_LIMIT, description: `Rows per page (default ${DEFAULT_REPORT_LIMIT})` })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_REPORT_OFFSET, description: 'Rows to skip (not with cursor)' })),
  cursor: Type.Optional(CursorParam('next_cursor of the previous page of this same request')),
  comparison: Type.Optional(Type.Union([StringEnum(COMPARISONS, { title: 'comparison' }), PeriodObject], {
    description: 'previous_period (the same number of days just before), previous_year (the same dates a year before; 29 February → 28 February) or a period {since, until}. Buckets are aligned by position',
  })),
  include: Type.Optional(Type.Array(StringEnum(REPORT_INCLUDE, { title: 'include' }), { uniqueItems: true, description: 'totals: the whole result\'s figures; status: account-days expected and reported per row' })),
  gaps: Type.Optional(StringEnum(GAPS_MODES, { title: 'gaps', description: GAPS_DESCRIPTION })),
}, { additionalProperties: false })
export type ReportRequestBody = Static<typeof ReportRequestBody>

/** GET /reports: the same members as a query string (lists comma-separated or repeated). */
export const ReportQuery = Type.Object({
  metrics: Type.String({ description: 'Comma-separated (or repeated) metrics' }),
  dimensions: Type.Optional(Type.String({ description: 'Comma-separated (or repeated) dimensions' })),
  since: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })),
  until: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })),
  brand_id: Type.Optional(Type.String({ description: 'Comma-separated brand ids' })),
  account_id: Type.Optional(Type.String({ description: 'Comma-separated account ids' })),
  platform: Type.Optional(Type.String({ description: 'Comma-separated platform codes or names' })),
  order_by: Type.Optional(Type.String({ description: 'Comma-separated (or repeated) metric or dimension names, each prefixed with - for descending' })),
  limit: Type.Optional(Type.String({ description: `Rows per page, 1 to ${MAX_REPORT_LIMIT}` })),
  offset: Type.Optional(Type.String({ description: 'Rows to skip' })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  comparison: Type.Optional(StringEnum(COMPARISONS, { title: 'comparison', description: 'previous_period or previous_year' })),
  comparison_since: Type.Optional(Type.String({ description: 'With comparison_until: a comparison period' })),
  comparison_until: Type.Optional(Type.String({ description: 'With comparison_since: a comparison period' })),
  include: Type.Optional(Type.String({ description: 'Comma-separated (or repeated): totals, status' })),
  gaps: Type.Optional(Type.String({ description: 'zero (default) or carry: see the body\'s gaps' })),
})
export type ReportQuery = Static<typeof ReportQuery>

const Figures = Type.Record(Type.String(), Type.Union([Type.Number(), Type.Null()]), { description: 'One value per requested metric, in the request\'s order; null where the row\'s platform lacks the metric' })

export const ReportRow = component('ReportRow', Type.Object({
  date: Type.Optional(DateMember('dimension date')),
  week: Type.Optional(Type.String({ description: 'dimension week: ISO week YYYY-Www' })),
  month: Type.Optional(Type.String({ description: 'dimension month: YYYY-MM' })),
  quarter: Type.Optional(Type.String({ description: 'dimension quarter: YYYY-Qn' })),
  year: Type.Optional(Type.String({ description: 'dimension year: YYYY' })),
  platform: Type.Optional(Type.String({ description: 'dimension platform or account: the platform code' })),
  brand_id: Type.Optional(Type.Integer({ description: 'dimension brand' })),
  brand_name: Type.Optional(Type.String({ description: 'dimension brand' })),
  account_id: Type.Optional(Type.Integer({ description: 'dimension account' })),
  account_name: Type.Optional(Type.String({ description: 'dimension account' })),
  metrics: Figures,
  accounts_expected: Type.Optional(Type.Integer({ minimum: 0, description: 'include status: account-days of the row\'s accounts inside their coverage, in the row\'s bucket' })),
  accounts_reported: Type.Optional(Type.Integer({ minimum: 0, description: 'include status: account-days with data' })),
  comparison: Type.Optional(Type.Union([Type.Object({
    date: Type.Optional(Type.String()),
    week: Type.Optional(Type.String()),
    month: Type.Optional(Type.String()),
    quarter: Type.Optional(Type.String()),
    year: Type.Optional(Type.String()),
    complete: Type.Boolean({ description: 'Whether every account-day the comparison bucket expected was reported; when false, change and relative_change are null' }),
    metrics: Figures,
    change: Figures,
    relative_change: Figures,
  }), Type.Null()], { description: 'With comparison: the bucket at the same position of the comparison period; null when it has none' })),
}))

export const ReportResponse = component('ReportResponse', Type.Object({
  rows: Type.Array(ReportRow),
  total: Type.Integer({ description: 'Rows on this page' }),
  total_rows: Type.Integer({ description: 'Rows of the whole result' }),
  next_cursor: Type.Optional(Type.String({ description: 'Present only when another page exists' })),
  since: DateMember('Start of the period'),
  until: DateMember('End of the period'),
  dimensions: Type.Array(Type.String()),
  metrics: Type.Array(Type.String()),
  platforms: Type.Union([Type.Array(Type.String()), Type.Literal('all')], { description: 'Requested platform codes in canonical order, or "all"' }),
  brand_ids: Type.Array(Type.Integer(), { description: 'Brands in scope, ascending' }),
  totals: Type.Optional(Figures),
  comparison: Type.Optional(Type.Object({
    since: DateMember('Start of the comparison period'),
    until: DateMember('End of the comparison period'),
    totals: Type.Optional(Figures),
  })),
  cost: Type.Object({
    requests: Type.Integer({ description: 'Requests counted against the rate limits (always 1)' }),
    rows_estimate: Type.Integer({ description: 'Rows estimated before the report ran (limit 100000)' }),
    account_days_read: Type.Integer({ description: 'Account-days summed, both periods' }),
    heavy: Type.Boolean({ description: 'Whether the report ran in the heavy lane' }),
  }, { description: 'What the report cost (the requests left in each rate-limit window are in the X-RateLimit-Remaining-* headers, as on every route, so that the body, and its ETag, stay the same for the same question)' }),
}))
export type ReportResponse = Static<typeof ReportResponse>
