import type { AnalyticsQuery, DataStatusQuery, PostsQuery } from '../../../packages/client/src/types.js'
import type { Filters } from './filters.js'
import type { Period } from './period.js'
import { accountsField, type Platform } from './platforms.js'

/**
 * The API queries behind each view, built from the filters, and the `partner-analytics-export`
 * command that writes the same rows: the dashboard's CSV download and that command's CSV are
 * the same file for the same query.
 */

/** What /me tells us about a brand (only the fields used here). */
export type BrandAccounts = { brand_id: number, brand_name: string } & Partial<Record<`${Platform}_accounts`, Array<{ account_id: number, account_name: string }>>>

/** The grouping shared by the charts and the table: brand, account or platform, and which platforms. */
export interface Scope {
  brand_id?: number[]
  account_id?: number[]
  platform?: Platform[]
  split_by_platform?: true
  /** Set when the filters asked for account rows but cannot have them, and why. */
  note?: string
}

/**
 * Split by platform groups by platform only (across the brands). Account rows need exactly one
 * platform (the API's rule: account ids are unique per platform only) and list every account of
 * the chosen brands (all accessible brands when none is chosen) on that platform.
 */
export function analyticsScope (filters: Filters, brands: readonly BrandAccounts[]): Scope {
  const base: Scope = {
    ...(filters.brands.length > 0 ? { brand_id: filters.brands } : {}),
    ...(filters.platforms.length > 0 ? { platform: filters.platforms } : {}),
  }
  if (filters.split) {
    return { ...base, split_by_platform: true, ...(filters.rows === 'account' ? { note: 'Split by platform groups by platform only: account rows are not used.' } : {}) }
  }
  if (filters.rows !== 'account') return base
  const platform = filters.platforms.length === 1 ? filters.platforms[0] : undefined
  if (platform === undefined) return { ...base, note: 'Account rows need exactly one platform: showing brands.' }
  const chosen = filters.brands.length > 0 ? brands.filter((brand) => filters.brands.includes(brand.brand_id)) : brands
  const accountIds = [...new Set(chosen.flatMap((brand) => (brand[accountsField(platform)] ?? []).map((account) => account.account_id)))].sort((a, b) => a - b)
  if (accountIds.length === 0) return { ...base, note: 'None of the chosen brands has an account on this platform: showing brands.' }
  return { ...base, account_id: accountIds }
}

/**
 * The chart query: every daily page, or the monthly breakdown, with each entry's completeness
 * (include=status: the points with fewer accounts reporting than expected are marked) and the
 * gap rules (gaps=carry: a stock carried from each account's last report, a rate over the
 * account-days reporting both its parts, a flow never invented).
 */
export function seriesQuery (filters: Filters, scope: Scope, period: Period): AnalyticsQuery {
  return { type: filters.granularity, ...period, ...scopeParams(scope), include: ['status'], gaps: 'carry' }
}

/**
 * The table query: one agg entry per brand, account or platform, with total, average and
 * completeness, under the charts' gap rules (gaps=carry): an account that did not report the
 * period's last day counts with its last reported followers, not as a drop.
 */
export function tableQuery (scope: Scope, period: Period): AnalyticsQuery {
  return { type: 'agg', ...period, ...scopeParams(scope), include: ['status'], gaps: 'carry' }
}

/**
 * The chosen brands and platforms as a scope (none: all): what the comparing views ask
 * GET /data-status for, so that they share one answer per period in the session cache.
 */
export function chosenScope (filters: Filters): Scope {
  return { ...(filters.brands.length > 0 ? { brand_id: filters.brands } : {}), ...(filters.platforms.length > 0 ? { platform: filters.platforms } : {}) }
}

/** The accounts behind the figures of a scope and period (GET /data-status): freshness, and who is missing. */
export function dataStatusQuery (scope: Scope, period: Period): Omit<DataStatusQuery, 'cursor' | 'limit'> {
  const { split_by_platform: _split, ...params } = scopeParams(scope)
  return { ...period, ...params } as Omit<DataStatusQuery, 'cursor' | 'limit'>
}

/**
 * The headline and per-platform query: agg split by platform over the chosen brands and
 * platforms. Its aggregates.total gives the headline sums, and its per-platform entries carry
 * the reach and views the overall engagement rate needs (aggregates do not include one).
 */
export function platformQuery (filters: Filters, period: Period): AnalyticsQuery {
  return {
    type: 'agg',
    ...period,
    ...(filters.brands.length > 0 ? { brand_id: filters.brands } : {}),
    ...(filters.platforms.length > 0 ? { platform: filters.platforms } : {}),
    split_by_platform: true,
  }
}

/**
 * The Platforms view's query: the per-platform agg of the headlines, under the charts' gap rules
 * (gaps=carry), so a platform whose account missed the last day does not show a fall, with each
 * entry's completeness (include=status), so a carried stock and a flow not every account-day
 * reported are marked, and a carried-only entry's flows (0: nothing reported) are not shown as 0.
 */
export function platformsViewQuery (filters: Filters, period: Period): AnalyticsQuery {
  return { ...platformQuery(filters, period), include: ['status'], gaps: 'carry' }
}

export function postsQuery (filters: Filters, period: Period): PostsQuery {
  return {
    ...period,
    ...(filters.brands.length > 0 ? { brand_id: filters.brands } : {}),
    ...(filters.platforms.length > 0 ? { platform: filters.platforms } : {}),
    ...(filters.postType !== '' ? { post_type: [filters.postType] } : {}),
    order_by: filters.orderBy,
    limit: filters.limit,
  }
}

function scopeParams (scope: Scope): AnalyticsQuery {
  return {
    ...(scope.brand_id !== undefined ? { brand_id: scope.brand_id } : {}),
    ...(scope.account_id !== undefined ? { account_id: scope.account_id } : {}),
    ...(scope.platform !== undefined ? { platform: scope.platform } : {}),
    ...(scope.split_by_platform === true ? { split_by_platform: true } : {}),
  }
}

const list = (value: unknown): string => Array.isArray(value) ? value.join(',') : String(value)

/** The export command's arguments for an analytics query (after `partner-analytics-export`). */
export function analyticsExportArgs (query: AnalyticsQuery): string[] {
  const args = ['analytics', '--type', query.type ?? 'daily']
  if (query.since !== undefined) args.push('--since', query.since)
  if (query.until !== undefined) args.push('--until', query.until)
  if (query.brand_id !== undefined) args.push('--brand-id', list(query.brand_id))
  if (query.account_id !== undefined) args.push('--account-id', list(query.account_id))
  if (query.platform !== undefined) args.push('--platform', list(query.platform))
  if (query.split_by_platform === true) args.push('--split-by-platform')
  if (query.gaps === 'carry') args.push('--gaps', 'carry')
  args.push('--format', 'csv')
  return args
}

/** The export command's arguments for a posts query; it walks every page, `limit` is its page size. */
export function postsExportArgs (query: PostsQuery): string[] {
  const args = ['posts']
  if (query.since !== undefined) args.push('--since', query.since)
  if (query.until !== undefined) args.push('--until', query.until)
  if (query.brand_id !== undefined) args.push('--brand-id', list(query.brand_id))
  if (query.platform !== undefined) args.push('--platform', list(query.platform))
  if (query.post_type !== undefined) args.push('--post-type', list(query.post_type))
  if (query.order_by !== undefined) args.push('--order-by', query.order_by)
  if (query.limit !== undefined) args.push('--page-size', String(query.limit))
  args.push('--format', 'csv')
  return args
}
