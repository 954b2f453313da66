import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { POST_TYPES } from '../../../domain/post-types.js'
import { DEFAULT_LIMIT, MAX_LIMIT, ORDER_BY_VALUES } from '../../../posts/params.js'

/**
 * GET /posts request and response (DECISIONS.md §7), for OpenAPI and response serialisation.
 * Every parameter is a string here on purpose: src/posts/params.ts parses them all in one pass so
 * a 422 names every offending parameter with the contract's messages.
 */

const text = (description: string) => Type.Optional(Type.String({ description }))

export const PostsQuery = Type.Object({
  since: text('YYYY-MM-DD, inclusive UTC date of created_time; default today minus 7 days'),
  until: text('YYYY-MM-DD, inclusive; default today'),
  brand_id: text('One or comma-separated brand ids; default every accessible brand'),
  account_id: text('One or comma-separated account ids; needs exactly one platform'),
  platform: text('Comma-separated platform codes or names (fb, facebook, …); default all'),
  post_type: text(`Comma-separated categories: ${POST_TYPES.join(', ')} (reels = reel)`),
  order_by: text(`${ORDER_BY_VALUES.join(', ')}; default created_time`),
  order: text('desc (default) or asc'),
  limit: text(`Records per page, 1 to ${MAX_LIMIT}; default ${DEFAULT_LIMIT}`),
  topics: text('true adds `subjects` to each record'),
  category: text('true adds `category` to each record'),
  cursor: text('next_cursor of the previous page of this same query'),
})

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const optionalCount = (description: string) => Type.Optional(nullable(Type.Integer({ description })))

export const PostRecordSchema = Type.Object({
  id: Type.String({ description: "The platform's own post id" }),
  platform: Type.String({ description: 'Full platform name: facebook, instagram, tiktok, youtube, linkedin, threads, snapchat, dailymotion, pinterest' }),
  account_id: Type.Integer(),
  account_name: Type.String(),
  brand_id: Type.Integer(),
  created_time: Type.String({ description: 'UTC, whole seconds: 2026-11-21T10:30:00Z' }),
  type: nullable(Type.String({ description: "The platform's own type as imported, e.g. REELS, video_inline" })),
  post_type: Type.String({ description: `Category: ${POST_TYPES.join(', ')}` }),
  title: nullable(Type.String()),
  description: nullable(Type.String()),
  permalink: nullable(Type.String()),
  thumbnail_url: nullable(Type.String()),
  views: optionalCount('Views; null when not imported'),
  likes: optionalCount('Absent on Snapchat'),
  comments: optionalCount('Absent on Snapchat, Dailymotion'),
  shares: optionalCount('Absent on Dailymotion, Pinterest'),
  reach: optionalCount('Facebook, Instagram, Snapchat, LinkedIn only'),
  impressions: optionalCount('Facebook, LinkedIn, Dailymotion, Pinterest only'),
  interactions: optionalCount('Likes, comments, shares and similar'),
  total_interactions: optionalCount('Same value as interactions'),
  revenue: Type.Optional(nullable(Type.Number({ description: 'Rounded half-up to 2 decimals' }))),
  engagement_rate: Type.Optional(nullable(Type.Number({ description: 'interactions / reach (fb, ig, sc, li) or views (others), 6 decimals; a ratio' }))),
  subjects: Type.Optional(nullable(Type.String({ description: 'Only with topics=true' }))),
  category: Type.Optional(nullable(Type.String({ description: 'Only with category=true' }))),
})

export const PostsResponse = Type.Object({
  data: Type.Array(PostRecordSchema),
  total: Type.Integer({ description: 'Records on this page' }),
  since: Type.String(),
  until: Type.String(),
  platforms: Type.Union([Type.Array(Type.String()), Type.Literal('all')], { description: 'Requested platform codes in canonical order, or "all"' }),
  brand_ids: Type.Array(Type.Integer(), { description: 'Brands in scope, ascending' }),
  brand_id: Type.Optional(Type.Integer({ description: 'When exactly one brand_id was given' })),
  next_cursor: nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page' })),
})
export type PostsResponse = Static<typeof PostsResponse>
