import { roundedRatio } from '../../../src/domain/rounding.js'
import { ENGAGEMENT_DENOMINATOR, isPlatform } from './platforms.js'

/**
 * The engagement rate of several platforms together. The API's aggregates carry no engagement
 * rate, and a rate cannot be averaged; but the API's own formula (docs/api-reference.md "GET /analytics/":
 * interactions ÷ (reach on fb, ig, sc, li + views elsewhere), 6 decimals, half-up, 0 when the
 * denominator is 0) can be applied to the per-platform sums of an agg split by platform. For one
 * platform, or one brand over all platforms, this is exactly the API's number.
 */

interface PlatformEntry { platform?: unknown, interactions?: unknown, reach?: unknown, views?: unknown }

const count = (value: unknown): number => typeof value === 'number' && Number.isFinite(value) ? value : 0

/** numerator / denominator rounded half-up to 6 decimals with integer arithmetic: the API's own rounding (src/domain/rounding.ts). */
export function roundedRatio6 (numerator: number, denominator: number): number {
  return roundedRatio(numerator, denominator, 6)
}

export function combinedEngagementRate (entries: readonly PlatformEntry[]): number {
  let interactions = 0
  let denominator = 0
  for (const entry of entries) {
    const platform = String(entry.platform)
    if (!isPlatform(platform)) continue
    interactions += count(entry.interactions)
    denominator += ENGAGEMENT_DENOMINATOR[platform] === 'reach' ? count(entry.reach) : count(entry.views)
  }
  return roundedRatio6(interactions, denominator)
}
