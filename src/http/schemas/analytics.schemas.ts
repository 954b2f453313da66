import { Type, type Static } from '@sinclair/typebox'
import { PLATFORM_METRICS, PLATFORM_METRIC_NAMES } from '../../domain/metrics.js'

/**
 * GET /analytics/ request and response shapes (SPEC.md, DECISIONS.md §6), for validation,
 * serialization (property order = output order) and OpenAPI. The query is declared as plain
 * strings: src/analytics/params.ts parses it so that one 422 lists every bad parameter.
 */

const text = (description: string) => Type.Optional(Type.String({ description }))

export const AnalyticsQuery = Type.Object({
  type: text('daily (default), monthly or agg; case-sensitive'),
  since: text('YYYY-MM-DD, inclusive; default today (UTC) minus 7 days'),
  until: text('YYYY-MM-DD, inclusive; default today (UTC); at most 1096 days after since, inclusive'),
  brand_id: text('One or comma-separated brand ids (at most 100); default every accessible brand'),
  account_id: text('One or comma-separated account ids (at most 100) on the one platform given'),
  platform: text('Comma-separated platform codes or names (fb, facebook, …); default all platforms summed'),
  split_by_platform: text('true/false/1/0/yes/no/on/off: group by platform only, across every brand'),
  cursor: text('type=daily only: next_cursor of the previous page of this same query'),
})

const nullableString = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }))
const count = (description: string) => Type.Optional(Type.Integer({ description }))

export const AnalyticsEntry = Type.Object({
  date: Type.Optional(Type.String({ description: 'type=daily: YYYY-MM-DD' })),
  month: Type.Optional(Type.String({ description: 'type=monthly: YYYY-MM' })),
  platform: Type.Optional(Type.String({ description: 'Platform code, when platform was given or split_by_platform=true' })),
  brand_id: count('When grouped by brand'),
  account_id: count('When account_id was given'),
  name: nullableString('type=agg: brand name (by brand) or account name (by account)'),
  account_name: nullableString('daily/monthly entries of an account'),
  network_id: nullableString('type=agg by account: platform-specific identifier'),
  storage_avatar: nullableString('type=agg by account: avatar URL'),
  permalink: nullableString('type=agg by account: profile URL'),
  revenue: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: '2 decimals; agg: null when nothing was reported' })),
  views: count('Sum of views'),
  followers: count('daily: sum of the day; monthly/agg: sum over accounts of the last value reported in the window'),
  new_followers: count('Sum of followers gained'),
  posts_count: count('Sum of posts published'),
  posts_per_day: Type.Optional(Type.Number({ description: 'daily: posts_count; monthly/agg: posts_count / days of the window in the period, 2 decimals' })),
  interactions: count('Sum of interactions'),
  engagement_rate: Type.Optional(Type.Number({ description: 'interactions / (reach of fb, ig, sc, li rows + views of the others), 6 decimals; 0 when the denominator is 0' })),
  interaction_rate: Type.Optional(Type.Number({ description: 'Same value as engagement_rate' })),
  ...Object.fromEntries(PLATFORM_METRIC_NAMES.map((metric) => [metric, count(`Platforms: ${PLATFORM_METRICS[metric].join(', ')}${metric === 'ad_reach' ? ' (daily only)' : ''}`)])),
})

const AggregateFigures = Type.Object({
  views: Type.Number(),
  revenue: Type.Union([Type.Number(), Type.Null()]),
  interactions: Type.Number(),
  posts_count: Type.Number(),
  new_followers: Type.Number(),
  followers: Type.Number(),
  posts_per_day: Type.Number(),
})

export const AnalyticsResponse = Type.Object({
  data: Type.Array(AnalyticsEntry),
  total: Type.Integer({ description: 'Entries in this response (this page for daily)' }),
  aggregates: Type.Optional(Type.Object({
    total: AggregateFigures,
    average: AggregateFigures,
  }, { description: 'type=agg: sums of the entries, and those sums divided by the number of entries' })),
  since: Type.String(),
  until: Type.String(),
  platforms: Type.Union([Type.Array(Type.String()), Type.Literal('all')], { description: 'Requested platform codes in canonical order, or "all"' }),
  brand_ids: Type.Array(Type.Integer(), { description: 'Brands in scope, ascending' }),
  brand_id: count('When exactly one brand_id was given'),
  next_cursor: Type.Optional(Type.String({ description: 'type=daily: present only when another page exists' })),
})
export type AnalyticsResponse = Static<typeof AnalyticsResponse>
export type AnalyticsEntry = Static<typeof AnalyticsEntry>
