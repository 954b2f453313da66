import type { PostsPage, PostsRequest, PostsWalk } from '../../domain/posts.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import { buildPostsPageQuery } from '../../storage/queries/posts-page.query.js'
import { readPostClock } from '../../storage/repositories/posts.repository.js'
import { toPostRecord } from './record.js'

/**
 * GET /posts below HTTP: given a validated request and its resolved scope, read one page of the
 * walk (a new one, or the one `walk` continues). The caller turns `next` into a cursor.
 */
export interface PostsService {
  page: (scope: Scope, request: PostsRequest, walk: PostsWalk | undefined) => Promise<PostsPage>
}

export function createPostsService (deps: { store: Store, now?: () => number }): PostsService {
  const now = deps.now ?? Date.now
  return {
    // Read where partner reads go: a current read replica, or the primary (src/storage/replicas/).
    page: async (scope, request, walk) => await deps.store.reads.run(async (store) => {
      const period = walk?.period ?? request.period
      const snapshot = walk?.snapshot ?? await readPostClock(store.db)
      const startedAt = walk?.startedAt ?? Math.floor(now() / 1000)

      // A user with no brands has nothing to read (and `in ()` is not valid SQL).
      const rows = scope.brandIds.length === 0
        ? []
        : await buildPostsPageQuery(store.db, {
          dialect: store.dialect,
          scope,
          period,
          postTypes: request.postTypes,
          orderBy: request.orderBy,
          order: request.order,
          fetch: request.limit + 1,
          snapshot,
          after: walk?.after,
        }).execute()

      const page = rows.slice(0, request.limit)
      const last = page.at(-1)
      const next: PostsWalk | undefined = rows.length > request.limit && last !== undefined
        ? { snapshot, startedAt, period, after: { value: last.sort_value, id: last.id, platformRank: Number(last.platform_rank) } }
        : undefined
      return {
        records: page.map((row) => toPostRecord(row, request)),
        period,
        platforms: request.platforms,
        brandIds: scope.brandIds,
        singleBrandId: scope.singleBrandId,
        next,
      }
    }),
  }
}
