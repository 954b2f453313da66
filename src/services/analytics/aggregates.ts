import type { AggregateFigures, Entry } from '../../domain/analytics.js'
import { amountToCents, averageCents, centsToAmount, roundedRatio } from '../../domain/rounding.js'

/** agg's `aggregates` (docs/api-reference.md "GET /analytics/" "Envelopes"). */

const INTEGER_FIELDS = ['views', 'interactions', 'posts_count', 'new_followers', 'followers'] as const

/**
 * `total` sums the entries' own (rounded) values; revenue is null when every entry's is;
 * `average` = total / number of entries, half-up to 2 decimals. Sums run in integer cents.
 */
export function computeAggregates (entries: Entry[]): { total: AggregateFigures, average: AggregateFigures } {
  const n = entries.length
  const integerTotals = Object.fromEntries(INTEGER_FIELDS.map((field) =>
    [field, entries.reduce((sum, entry) => sum + Number(entry[field] ?? 0), 0)])) as Record<(typeof INTEGER_FIELDS)[number], number>
  const revenues = entries.map((entry) => entry.revenue).filter((value): value is number => typeof value === 'number')
  const revenueCents = revenues.length === 0 ? null : revenues.reduce((sum, value) => sum + amountToCents(value), 0)
  const postsPerDayCents = entries.reduce((sum, entry) => sum + amountToCents(Number(entry.posts_per_day ?? 0)), 0)

  const total: AggregateFigures = {
    ...integerTotals,
    revenue: revenueCents === null ? null : centsToAmount(revenueCents),
    posts_per_day: centsToAmount(postsPerDayCents),
  }
  const average: AggregateFigures = {
    views: roundedRatio(total.views, n, 2),
    revenue: revenueCents === null ? null : averageCents(revenueCents, n),
    interactions: roundedRatio(total.interactions, n, 2),
    posts_count: roundedRatio(total.posts_count, n, 2),
    new_followers: roundedRatio(total.new_followers, n, 2),
    followers: roundedRatio(total.followers, n, 2),
    posts_per_day: averageCents(postsPerDayCents, n),
  }
  return { total, average }
}
