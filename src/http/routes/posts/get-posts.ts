import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { validationError } from '../../../domain/errors.js'
import { POSTS_WALK_MAX_AGE_SECONDS, type PostsRequest } from '../../../domain/posts.js'
import { CursorCodec } from '../../cursors/codec.js'
import { decodePostsCursor, encodePostsCursor, type PostsCursorBinding } from '../../cursors/posts-cursor.js'
import { platformCodes, postTypes, sortedIds } from '../../query/lists.js'
import { cursorIssue, periodOf, periodRule } from '../../query/period-rule.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { BareDetailBody, ErrorBody, protectedErrorResponses } from '../../schemas/errors.schemas.js'
import { PostsPage, PostsQuery } from '../../schemas/posts.schemas.js'

/**
 * GET /posts (and /posts/, the same route: docs/api-reference.md "Basics"): one page of posts across platforms.
 * Checks run in the contract's order: 401 (hook) → 422 → 400 → 403 → 404.
 */
export const getPostsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cursors = new CursorCodec(app.config.jwtSecret, 'posts')
  const schema = {
    operationId: 'listPosts',
    tags: ['posts'],
    summary: 'Posts of every platform, filtered, sorted and paged',
    description: 'Also served at `/posts/` (trailing slash).',
    querystring: PostsQuery,
    response: { 200: PostsPage, 400: BareDetailBody, 404: ErrorBody, ...protectedErrorResponses },
  }
  const config = { access: PARTNER_ROUTE, internalErrorDetail: 'Error fetching posts', queryRules: [periodRule] }

  async function handle (request: FastifyRequest<{ Querystring: PostsQuery }>): Promise<PostsPage> {
    const query = request.query
    const asked: PostsRequest = {
      period: periodOf(query, request.today),
      brandIds: sortedIds(query.brand_id),
      accountIds: sortedIds(query.account_id),
      platforms: platformCodes(query.platform),
      postTypes: postTypes(query.post_type),
      orderBy: query.order_by,
      order: query.order,
      limit: query.limit,
      topics: query.topics,
      category: query.category,
    }
    const bound: PostsCursorBinding = { request: asked, givenSince: query.since, givenUntil: query.until }
    let walk
    if (query.cursor !== undefined) {
      const decoded = decodePostsCursor(cursors, bound, query.cursor, Math.floor(app.services.now() / 1000))
      if (!decoded.ok) {
        throw validationError([decoded.reason === 'expired'
          ? cursorIssue('cursor_expired', { max_age_seconds: POSTS_WALK_MAX_AGE_SECONDS })
          : cursorIssue('cursor_invalid')])
      }
      walk = decoded.walk
    }
    const scope = await app.services.access.resolveScope(request.principal, asked)
    const page = await app.services.posts.page(scope, asked, walk)
    return {
      data: page.records,
      total: page.records.length,
      since: page.period.since,
      until: page.period.until,
      platforms: page.platforms ?? 'all',
      brand_ids: page.brandIds,
      brand_id: page.singleBrandId,
      next_cursor: page.next === undefined ? null : encodePostsCursor(cursors, bound, page.next),
    } as PostsPage
  }

  app.get('/posts', { schema, config }, handle)
  app.get('/posts/', { schema: { ...schema, hide: true }, config }, handle)
}
