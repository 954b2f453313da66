import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { resolveScope } from '../../../access/scope.js'
import { listAccessibleBrandIds } from '../../../auth/brand-access.js'
import { parsePostsQuery } from '../../../posts/params.js'
import { continuedWalk, fetchPosts } from '../../../posts/posts.service.js'
import { CursorCodec } from '../../cursor.js'
import { utcToday } from '../../params.js'
import { BareDetailBody, ErrorBody, protectedErrorResponses } from '../../schemas/errors.schemas.js'
import { PostsQuery, PostsResponse } from './posts.schemas.js'

/**
 * GET /posts and /posts/ (DECISIONS.md §1, §7, §10): one page of posts across platforms.
 * Checks run in the contract's order: 401 (hook) → 422 → 400 → 403 → 404.
 */
export const getPostsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cursors = new CursorCodec(app.config.jwtSecret, 'posts')
  // Two paths, one route (DECISIONS.md §1): the same schema, each with its own operationId.
  const schemaFor = (operationId: string) => ({
    operationId,
    tags: ['posts'],
    summary: 'Posts of every platform, filtered, sorted and paged',
    querystring: PostsQuery,
    response: { 200: PostsResponse, 400: BareDetailBody, 404: ErrorBody, ...protectedErrorResponses },
  })

  for (const [url, operationId] of [['/posts', 'listPosts'], ['/posts/', 'listPostsTrailingSlash']] as const) {
    app.get(url, { schema: schemaFor(operationId), config: { internalErrorDetail: 'Error fetching posts' } }, async (request) => {
      const query = parsePostsQuery(request.query, utcToday())
      const continued = continuedWalk(query, cursors)
      const accessible = await listAccessibleBrandIds(app.store.db, request.user.userId)
      const scope = await resolveScope(app.store.db, accessible, query)
      // The service builds plain records; the response schema is the contract they are serialized by.
      return await fetchPosts(app.store, query, scope, cursors, continued) as PostsResponse
    })
  }
}
