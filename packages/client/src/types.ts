import type { paths } from './generated/openapi.js'

/**
 * Request and response types of the client, taken from the types generated from the service's
 * OpenAPI document (src/generated/openapi.ts), so a change of the contract breaks the build here.
 */

type JsonOf<Operation, Status extends number> = Operation extends { responses: { [S in Status]: { content: { 'application/json': infer Body } } } } ? Body : never
type QueryOf<Operation> = Operation extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never

export type TokenResponse = JsonOf<paths['/auth/login']['post'], 200>
export type HealthResponse = JsonOf<paths['/health']['get'], 200>
export type MeResponse = JsonOf<paths['/me']['get'], 200>
export type Brand = MeResponse['brands'][number]
export type AnalyticsResponse = JsonOf<paths['/analytics/']['get'], 200>
export type AnalyticsEntry = AnalyticsResponse['data'][number]
export type PostsResponse = JsonOf<paths['/posts']['get'], 200>
export type Post = PostsResponse['data'][number]

type GeneratedAnalyticsQuery = QueryOf<paths['/analytics/']['get']>
type GeneratedPostsQuery = QueryOf<paths['/posts']['get']>

/** A list parameter: one value, an array (sent comma-separated), or the raw comma-separated string. */
export type ListParam<T> = T | readonly T[]

/** GET /analytics/ parameters, with friendlier types than the wire's strings. */
export interface AnalyticsQuery {
  type?: 'daily' | 'monthly' | 'agg'
  /** YYYY-MM-DD, inclusive. */
  since?: string
  until?: string
  brand_id?: ListParam<number>
  account_id?: ListParam<number>
  /** Codes or aliases: 'fb', 'facebook', … */
  platform?: ListParam<string>
  split_by_platform?: boolean
  cursor?: string
}

/** GET /posts parameters. */
export interface PostsQuery {
  since?: string
  until?: string
  brand_id?: ListParam<number>
  account_id?: ListParam<number>
  platform?: ListParam<string>
  post_type?: ListParam<string>
  order_by?: 'created_time' | 'interactions' | 'revenue' | 'reach' | 'views' | 'engagement_rate'
  order?: 'asc' | 'desc'
  limit?: number
  topics?: boolean
  category?: boolean
  cursor?: string
}

/** Compile-time check that every parameter the client sends is one the document declares. */
type KeysWithin<Ours, Theirs> = Exclude<keyof Ours, keyof Theirs> extends never ? true : never
export const analyticsQueryMatchesDocument: KeysWithin<AnalyticsQuery, GeneratedAnalyticsQuery> = true
export const postsQueryMatchesDocument: KeysWithin<PostsQuery, GeneratedPostsQuery> = true
