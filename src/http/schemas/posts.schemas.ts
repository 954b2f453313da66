import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { POST_COUNT_METRICS, POST_PLATFORM_METRICS, POST_TEXT_FIELDS } from '../../domain/post-fields.js'
import { POST_TYPES } from '../../domain/post-types.js'
import { ORDER_BY_VALUES, ORDER_VALUES, POSTS_DEFAULT_LIMIT, POSTS_MAX_LIMIT } from '../../domain/posts.js'
import { PLATFORM_METRICS } from '../../domain/metrics.js'
import { PLATFORM_NAMES } from '../../domain/platforms.js'
import { component } from './components.js'
import { DateMember, TimestampMember } from './formats.js'
import { CursorParam, DateParam, FlagParam, IdListParam, PlatformListParam, PostTypeListParam, StringEnum } from './params.schemas.js'

/** GET /posts: the query, the post record and the page (docs/posts.md). */

export const PostsQuery = Type.Object({
  since: Type.Optional(DateParam('First UTC calendar day of created_time, inclusive; default until (or today, if earlier) minus 7 days')),
  until: Type.Optional(DateParam('Last UTC calendar day of created_time, inclusive; default today')),
  brand_id: Type.Optional(IdListParam('Brands whose posts to list; default every accessible brand')),
  account_id: Type.Optional(IdListParam('Accounts whose posts to list, on the one platform given')),
  platform: Type.Optional(PlatformListParam),
  post_type: Type.Optional(PostTypeListParam),
  order_by: StringEnum(ORDER_BY_VALUES, { default: 'created_time', description: 'Sort key; ties are broken by id in the same direction. Case-sensitive' }),
  order: StringEnum(ORDER_VALUES, { default: 'desc', description: 'Sort direction; metrics a post lacks (null) sort last either way. Case-sensitive' }),
  limit: Type.Integer({ minimum: 1, maximum: POSTS_MAX_LIMIT, default: POSTS_DEFAULT_LIMIT, description: `Records per page, 1 to ${POSTS_MAX_LIMIT}` }),
  topics: FlagParam('Add `subjects` to each record'),
  category: FlagParam('Add `category` to each record'),
  cursor: Type.Optional(CursorParam('next_cursor of the previous page of this same query')),
})
export type PostsQuery = Static<typeof PostsQuery>

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

function metricDescription (metric: string): string {
  const platforms = (PLATFORM_METRICS as Record<string, readonly string[]>)[metric]
  const where = platforms === undefined ? 'every platform' : platforms.map((code) => PLATFORM_NAMES[code as keyof typeof PLATFORM_NAMES]).join(', ') + ' only'
  return `${metric === 'interactions' ? 'Likes, comments, shares and similar' : metric} (${where}); null when not imported`
}

const TEXT_DESCRIPTIONS: Record<string, string> = {
  subjects: 'Only with topics=true',
  category: 'Only with category=true',
}

export const Post = component('Post', Type.Object({
  id: Type.String({ description: "The platform's own post id (unique per platform)" }),
  platform: Type.String({ description: `Full platform name: ${Object.values(PLATFORM_NAMES).join(', ')}` }),
  account_id: Type.Integer(),
  account_name: Type.String(),
  brand_id: Type.Integer(),
  created_time: TimestampMember('UTC, whole seconds: 2026-11-21T10:30:00Z'),
  type: nullable(Type.String({ description: "The platform's own type as imported, e.g. REELS, video_inline" })),
  post_type: Type.String({ description: `Category: ${POST_TYPES.join(', ')}` }),
  ...Object.fromEntries(POST_TEXT_FIELDS.filter((field) => TEXT_DESCRIPTIONS[field] === undefined).map((field) => [field, nullable(Type.String())])),
  // Record order: views, the platform-specific counts, interactions and its twin total_interactions.
  ...Object.fromEntries(POST_COUNT_METRICS.flatMap((metric) => [
    [metric, (POST_PLATFORM_METRICS as readonly string[]).includes(metric)
      ? Type.Optional(nullable(Type.Integer({ description: metricDescription(metric) })))
      : nullable(Type.Integer({ description: metricDescription(metric) }))],
    ...(metric === 'interactions' ? [['total_interactions', nullable(Type.Integer({ description: 'Same value as interactions' }))]] : []),
  ])),
  revenue: nullable(Type.Number({ description: 'Rounded half-up to 2 decimals; null when not imported' })),
  engagement_rate: nullable(Type.Number({ description: 'interactions / reach (fb, ig, sc, li) or views (others), 6 decimals, 0 when the denominator is 0; null when either was not imported' })),
  ...Object.fromEntries(POST_TEXT_FIELDS.filter((field) => TEXT_DESCRIPTIONS[field] !== undefined)
    .map((field) => [field, Type.Optional(nullable(Type.String({ description: TEXT_DESCRIPTIONS[field] })))])),
}))

export const PostsPage = component('PostsPage', Type.Object({
  data: Type.Array(Post),
  total: Type.Integer({ description: 'Records on this page' }),
  since: DateMember('First day of the period, YYYY-MM-DD'),
  until: DateMember('Last day of the period, YYYY-MM-DD'),
  platforms: Type.Union([Type.Array(Type.String()), Type.Literal('all')], { description: 'Requested platform codes in canonical order, or "all"' }),
  brand_ids: Type.Array(Type.Integer(), { description: 'Brands in scope, ascending' }),
  brand_id: Type.Optional(Type.Integer({ description: 'When exactly one brand_id was given' })),
  next_cursor: nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page' })),
}))
export type PostsPage = Static<typeof PostsPage>
