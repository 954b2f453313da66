import { Type, type Static } from '@sinclair/typebox'
import { REPORT_TYPES } from '../../domain/analytics.js'
import { METRIC_KINDS } from '../../domain/metric-catalog.js'
import { PLATFORM_CODES } from '../../domain/platforms.js'
import { component } from './components.js'
import { StringEnum } from './params.schemas.js'

/** GET /catalog/metrics: every metric the reports carry (docs/api-reference.md "Metric catalogue"). */

const combination = (over: string) => StringEnum(['sum', 'last', 'ratio'] as const, {
  description: `How a figure of several ${over} is made from theirs: sum; last (each account's last value reported inside the window); ratio (of the sums of ratio_of's inputs)`,
})
const platforms = Type.Array(StringEnum(PLATFORM_CODES), { description: 'Platform codes, canonical order' })
const noneValue = Type.Union([Type.Number(), Type.Null()])

export const MetricDescription = component('MetricDescription', Type.Object({
  name: Type.String({ description: 'The field name in analytics entries' }),
  label: Type.String({ description: 'A short label for a column or a chart' }),
  description: Type.String(),
  unit: StringEnum(['count', 'currency', 'ratio'] as const, { description: 'count: an integer; currency: the account\'s currency, a decimal with 2 places (exact sums, rounded half-up); ratio: a quotient' }),
  decimals: Type.Integer({ minimum: 0, description: 'Decimals of the value (0 for integers)' }),
  platforms: { ...platforms, description: 'Platforms whose accounts report it (a derived metric: whose accounts report its inputs)' },
  reports: Type.Array(StringEnum(REPORT_TYPES), { description: 'Report types (GET /analytics/ `type`) whose entries carry it' }),
  combine: Type.Object({
    over_days: combination('days'),
    over_accounts: combination('accounts'),
  }),
  ratio_of: Type.Union([Type.Object({
    numerator: Type.String({ description: 'A metric' }),
    denominator: Type.String({ description: 'A metric; `days` (the days of the entry\'s window inside the period); or `reach_or_views` (by platform: denominator_by_platform)' }),
    denominator_by_platform: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'With reach_or_views: the metric each platform\'s rows contribute' })),
  }), Type.Null()], { description: 'Derived metrics: what divides what; null for the others' }),
  same_as: Type.Union([Type.String(), Type.Null()], { description: 'The metric this one always equals; null for most' }),
  derived: Type.Boolean({ description: 'Computed from other metrics rather than reported by accounts (not counted by include=status)' }),
  none_reported: Type.Object({
    daily: noneValue,
    monthly: noneValue,
    agg: noneValue,
  }, { description: 'The value of an entry none of whose account-days reported the metric, by report type' }),
  kind: StringEnum(METRIC_KINDS, {
    description: 'flow: counts what happened during a day (summed; a day not reported is never invented); stock: a level at the end of a day (followers: not summed over days; by the gap rules a day not reported may take the account\'s last reported level); rate: a quotient of ratio_of\'s inputs (by the gap rules, only over the account-days that reported both)',
  }),
  additive: Type.Object({
    over_days: Type.Boolean({ description: 'Whether the sum of the days\' values is the value of the days together' }),
    over_accounts: Type.Boolean({ description: 'Whether the sum of the accounts\' values is the value of the accounts together' }),
  }),
}))

export const MetricCatalog = component('MetricCatalog', Type.Object({
  data: Type.Array(MetricDescription, { description: 'Every metric, in the order the entries write them' }),
  total: Type.Integer(),
}))
export type MetricCatalog = Static<typeof MetricCatalog>
