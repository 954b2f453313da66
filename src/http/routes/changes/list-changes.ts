import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import type { FeedStart } from '../../../domain/change-feed.js'
import { validationError } from '../../../domain/errors.js'
import { CursorCodec } from '../../cursors/codec.js'
import { decodeChangesCursor, encodeChangesCursor, type ChangesCursorBinding } from '../../cursors/changes-cursor.js'
import { changeEventTypes, sortedIds } from '../../query/lists.js'
import { cursorIssue } from '../../query/period-rule.js'
import { PARTNER_ROUTE, type QueryRule } from '../../route-access.js'
import { ChangesPage, ChangesQuery } from '../../schemas/changes.schemas.js'
import { ErrorBody, protectedErrorResponses } from '../../schemas/errors.schemas.js'
import { changesPageJson } from './changes-json.js'

/**
 * GET /changes (docs/api-reference.md "Change feed"): one page of the change events the caller
 * may see now. Checks: 401 (hook) → 422 (parameters, start with cursor, the cursor) → 403 (a
 * brand_id not accessible) → 410 (a cursor past the retention).
 */
export const listChangesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cursors = new CursorCodec(app.config.jwtSecret, 'changes')

  app.get('/changes', {
    schema: {
      operationId: 'listChanges',
      tags: ['changes'],
      summary: 'The change feed: what changed in the brands you can see, in commit order',
      description: 'Page with `next_cursor` while `has_more`; store the last `next_cursor` and call again later to get what changed since. ' +
        'Start with `start=latest` after reading your data in full. A cursor older than the retention is 410 CURSOR_EXPIRED: resynchronise.',
      querystring: ChangesQuery,
      response: { 200: ChangesPage, 410: ErrorBody, ...protectedErrorResponses },
    },
    config: { access: PARTNER_ROUTE, internalErrorDetail: 'Error fetching changes', queryRules: [startRule] },
  }, async (request, reply) => {
    const query = request.query
    const bound: ChangesCursorBinding = { userId: request.principal.userId, brandIds: sortedIds(query.brand_id), types: changeEventTypes(query.type) }
    let from: FeedStart = query.start === 'latest' ? { kind: 'latest' } : { kind: 'oldest' }
    if (query.cursor !== undefined) {
      const position = decodeChangesCursor(cursors, bound, query.cursor)
      if (position === undefined) throw validationError([cursorIssue('cursor_invalid')])
      from = { kind: 'after', ...position }
    }
    const page = await app.services.changes.page(bound.userId, { brandIds: bound.brandIds, types: bound.types, from, limit: query.limit })
    const next = encodeChangesCursor(cursors, bound, { eventNumber: page.position, issuedAt: app.services.now() })
    // Written as text around the pre-rendered events (changes-json.ts), not through the serializer.
    return await (reply as FastifyReply).type('application/json; charset=utf-8').send(changesPageJson(page, next))
  })
}

/** `start` says where to begin; a cursor says where to continue: both at once is a 422 on `start`. */
const startRule: QueryRule = (query) => query.start !== undefined && query.cursor !== undefined
  ? [{ loc: ['query', 'start'], msg: 'start cannot be combined with cursor: the cursor already says where to continue', type: 'start_with_cursor', ctx: {} }]
  : []
