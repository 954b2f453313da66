import { issue } from '../errors.js'
import type { PlatformCode } from '../domain/platforms.js'
import { POST_TYPES, resolvePostType, type PostType } from '../domain/post-types.js'
import { QueryParams, type Parsed, type Period } from '../http/params.js'

/**
 * The parameters of GET /posts (DECISIONS.md §7, §10), parsed in one pass so a 422 lists every
 * offending parameter. since/until/brand_id/account_id/platform follow /analytics/ exactly (the
 * shared parsers); access (400/403/404) is decided afterwards by src/access/scope.ts.
 */

export const ORDER_BY_VALUES = ['created_time', 'interactions', 'revenue', 'reach', 'views', 'engagement_rate'] as const
export type OrderBy = (typeof ORDER_BY_VALUES)[number]
export const ORDER_VALUES = ['desc', 'asc'] as const
export type Order = (typeof ORDER_VALUES)[number]

export const DEFAULT_LIMIT = 10
export const MAX_LIMIT = 50

export interface PostsRequest {
  /** The period as resolved now (defaults applied); a cursor's own period replaces it. */
  period: Period
  brandIds: number[] | undefined
  accountIds: number[] | undefined
  platforms: PlatformCode[] | undefined
  /** Categories, in catalogue order; undefined = every category. */
  postTypes: PostType[] | undefined
  orderBy: OrderBy
  order: Order
  limit: number
  topics: boolean
  category: boolean
  /** The raw cursor, judged once the rest is valid (src/posts/cursor.ts). */
  cursor: string | undefined
  /** since/until exactly as given (undefined when defaulted): part of the cursor binding. */
  givenSince: string | undefined
  givenUntil: string | undefined
}

/** Comma-separated categories (or `reels`), case-insensitive, duplicates collapsed; unknown or empty item → 422. */
export function parsePostTypeList (name: string, raw: string): Parsed<PostType[]> {
  const found = new Set<PostType>()
  for (const item of raw.split(',').map((part) => part.trim())) {
    const category = resolvePostType(item)
    if (category === undefined) {
      return { ok: false, issue: issue(['query', name], `Unknown post type ${JSON.stringify(item)}; use ${POST_TYPES.join(', ')}`, 'enum', { item, expected: [...POST_TYPES] }) }
    }
    found.add(category)
  }
  return { ok: true, value: POST_TYPES.filter((type) => found.has(type)) }
}

const INTEGER = /^[0-9]+$/

/** An integer from 1 to MAX_LIMIT. */
export function parseLimit (name: string, raw: string): Parsed<number> {
  const fail = (msg: string, type: string, ctx: Record<string, unknown>): Parsed<never> => ({ ok: false, issue: issue(['query', name], msg, type, ctx) })
  if (!INTEGER.test(raw)) return fail('Input should be a valid integer', 'int_parsing', {})
  const value = Number(raw)
  if (value < 1) return fail('Input should be greater than or equal to 1', 'greater_than_equal', { limit_value: 1 })
  if (value > MAX_LIMIT) return fail(`Input should be less than or equal to ${MAX_LIMIT}`, 'less_than_equal', { limit_value: MAX_LIMIT })
  return { ok: true, value }
}

/** @throws AppError VALIDATION_ERROR listing every offending parameter (the cursor is judged later) */
export function parsePostsQuery (query: Readonly<Record<string, string | undefined>>, today: string): PostsRequest {
  const params = new QueryParams(query)
  const givenSince = params.raw('since')
  const givenUntil = params.raw('until')
  const period = params.period(today)
  const request = {
    brandIds: params.idList('brand_id'),
    accountIds: params.idList('account_id'),
    platforms: params.platformList('platform'),
    postTypes: params.read('post_type', parsePostTypeList),
    orderBy: params.enum('order_by', ORDER_BY_VALUES) ?? 'created_time',
    order: params.enum('order', ORDER_VALUES) ?? 'desc',
    limit: params.read('limit', parseLimit) ?? DEFAULT_LIMIT,
    topics: params.boolean('topics') ?? false,
    category: params.boolean('category') ?? false,
    cursor: params.raw('cursor'),
  }
  params.finish()
  return { ...request, period: period as Period, givenSince, givenUntil }
}
