import { isDateText, presetPeriod, PRESETS, type Period, type Preset } from './period.js'
import { isPlatform, POST_TYPES, type Platform, type PostType } from './platforms.js'

/**
 * Everything a view depends on, kept in the page's query string so that a view can be
 * bookmarked and shared. Never a key, a secret or a token: those stay in memory.
 * Parameters left at their default are left out of the URL.
 */

export const VIEWS = ['overview', 'platforms', 'table', 'posts', 'accounts', 'exports', 'webhooks'] as const
export type View = (typeof VIEWS)[number]

/** The views whose figures are set against the previous period (the period line names it only there). */
export const COMPARING_VIEWS: readonly View[] = ['overview', 'platforms', 'accounts']

/** The views of the analytics filters' period (Exports and Webhooks have their own forms). */
export const PERIOD_VIEWS: readonly View[] = ['overview', 'platforms', 'table', 'posts', 'accounts']

/** Metrics the per-platform comparison can rank by. */
export const COMPARE_METRICS = ['views', 'interactions', 'engagement_rate', 'followers', 'new_followers', 'posts_count'] as const
export type CompareMetric = (typeof COMPARE_METRICS)[number]

export const ORDER_BY = ['created_time', 'views', 'interactions', 'engagement_rate', 'reach', 'revenue'] as const
export type OrderBy = (typeof ORDER_BY)[number]

export const POST_LIMITS = [10, 25, 50] as const

export interface Filters {
  view: View
  /** Brand ids; empty means every brand the partner can access (no brand_id sent). */
  brands: number[]
  /** Platform codes; empty means every platform, summed (no platform sent). */
  platforms: Platform[]
  /** A preset, or 'custom' with since/until. */
  period: Preset | 'custom'
  since: string
  until: string
  granularity: 'daily' | 'monthly'
  /** split_by_platform=true: one line per platform across the brands, instead of one per brand. */
  split: boolean
  /** Rows of the table and lines of the charts: brands, or accounts (needs exactly one platform). */
  rows: 'brand' | 'account'
  metric: CompareMetric
  orderBy: OrderBy
  /** Empty: every post type. */
  postType: PostType | ''
  limit: number
}

export const DEFAULT_FILTERS: Filters = {
  view: 'overview',
  brands: [],
  platforms: [],
  period: '28d',
  since: '',
  until: '',
  granularity: 'daily',
  split: false,
  rows: 'brand',
  metric: 'views',
  orderBy: 'views',
  postType: '',
  limit: 10,
}

const oneOf = <T extends string>(values: readonly T[], value: string | null, fallback: T): T =>
  value !== null && (values as readonly string[]).includes(value) ? value as T : fallback

/**
 * Reads the filters from a query string. Unknown or malformed values fall back to the default,
 * except brand ids and dates of the right shape: those go to the API as they are, so that a
 * shared link naming a brand one cannot see shows the API's 403, not a silently different view.
 */
export function parseFilters (search: string): Filters {
  const params = new URLSearchParams(search)
  const list = (name: string) => (params.get(name) ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '')
  const brands = [...new Set(list('brands').filter((item) => /^\d{1,9}$/.test(item)).map(Number).filter((id) => id > 0))]
  const platforms = [...new Set(list('platforms').map((item) => item.toLowerCase()).filter(isPlatform))]
  const since = params.get('since') ?? ''
  const until = params.get('until') ?? ''
  const custom = isDateText(since) && isDateText(until)
  const limit = Number(params.get('limit'))
  return {
    view: oneOf(VIEWS, params.get('view'), DEFAULT_FILTERS.view),
    brands,
    platforms,
    period: custom ? 'custom' : oneOf(PRESETS, params.get('period'), DEFAULT_FILTERS.period as Preset),
    since: custom ? since : '',
    until: custom ? until : '',
    granularity: oneOf(['daily', 'monthly'] as const, params.get('granularity'), DEFAULT_FILTERS.granularity),
    split: params.get('split') === '1',
    rows: oneOf(['brand', 'account'] as const, params.get('rows'), DEFAULT_FILTERS.rows),
    metric: oneOf(COMPARE_METRICS, params.get('metric'), DEFAULT_FILTERS.metric),
    orderBy: oneOf(ORDER_BY, params.get('order_by'), DEFAULT_FILTERS.orderBy),
    postType: oneOf(['', ...POST_TYPES] as const, params.get('post_type'), ''),
    limit: (POST_LIMITS as readonly number[]).includes(limit) ? limit : DEFAULT_FILTERS.limit,
  }
}

/** The query string for `filters` (with a leading `?`, or empty when everything is default). */
export function formatFilters (filters: Filters): string {
  const params = new URLSearchParams()
  const put = (name: string, value: string, fallback: string) => { if (value !== fallback) params.set(name, value) }
  put('view', filters.view, DEFAULT_FILTERS.view)
  put('brands', filters.brands.join(','), '')
  put('platforms', filters.platforms.join(','), '')
  if (filters.period === 'custom') {
    params.set('since', filters.since)
    params.set('until', filters.until)
  } else {
    put('period', filters.period, DEFAULT_FILTERS.period)
  }
  put('granularity', filters.granularity, DEFAULT_FILTERS.granularity)
  put('split', filters.split ? '1' : '0', '0')
  put('rows', filters.rows, DEFAULT_FILTERS.rows)
  put('metric', filters.metric, DEFAULT_FILTERS.metric)
  put('order_by', filters.orderBy, DEFAULT_FILTERS.orderBy)
  put('post_type', filters.postType, '')
  put('limit', String(filters.limit), String(DEFAULT_FILTERS.limit))
  // Commas read better than %2C in a shared link, and are legal in a query.
  const text = params.toString().replaceAll('%2C', ',')
  return text === '' ? '' : `?${text}`
}

/** The dates the filters stand for, with presets resolved against `today` (UTC). */
export function periodOf (filters: Filters, today: string): Period {
  return filters.period === 'custom' ? { since: filters.since, until: filters.until } : presetPeriod(filters.period, today)
}
