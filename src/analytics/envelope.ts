import type { Scope } from '../access/scope.js'
import type { PlatformCode } from '../domain/platforms.js'
import type { Period } from '../http/params.js'
import type { Entry } from './entries.js'
import { amountToCents, averageCents, centsToAmount, roundedRatio } from './rounding.js'

/**
 * The envelopes around the entries (DECISIONS.md §6 "Envelopes"), and agg's `aggregates`.
 */

export interface EnvelopeInput {
  period: Period
  platforms: PlatformCode[] | undefined
  scope: Scope
}

export type Envelope = Record<string, unknown> & { data: Entry[], total: number }

function common (data: Entry[], input: EnvelopeInput): Envelope {
  const envelope: Envelope = {
    data,
    total: data.length,
    since: input.period.since,
    until: input.period.until,
    platforms: input.platforms ?? 'all',
    brand_ids: input.scope.brandIds,
  }
  if (input.scope.singleBrandId !== undefined) envelope.brand_id = input.scope.singleBrandId
  return envelope
}

export function dailyEnvelope (data: Entry[], input: EnvelopeInput, nextCursor: string | undefined): Envelope {
  const envelope = common(data, input)
  if (nextCursor !== undefined) envelope.next_cursor = nextCursor
  return envelope
}

export function monthlyEnvelope (data: Entry[], input: EnvelopeInput): Envelope {
  return common(data, input)
}

export function aggEnvelope (data: Entry[], input: EnvelopeInput): Envelope {
  const { data: entries, total, ...rest } = common(data, input)
  return { data: entries, total, aggregates: computeAggregates(data), ...rest }
}

const INTEGER_FIELDS = ['views', 'interactions', 'posts_count', 'new_followers', 'followers'] as const

export interface AggregateFigures {
  views: number
  revenue: number | null
  interactions: number
  posts_count: number
  new_followers: number
  followers: number
  posts_per_day: number
}

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
