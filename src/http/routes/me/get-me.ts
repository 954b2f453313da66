import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { validationError } from '../../../domain/errors.js'
import { CursorCodec } from '../../cursors/codec.js'
import { decodeMeCursor, encodeMeCursor } from '../../cursors/me-cursor.js'
import { cursorIssue } from '../../query/period-rule.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { protectedErrorResponses } from '../../schemas/errors.schemas.js'
import { MeQuery, MeResponse } from '../../schemas/me.schemas.js'

/** GET /me (docs/api-reference.md "GET /me"). The cursor is bound to the user, not to `limit`. */
export const getMeRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cursors = new CursorCodec(app.config.jwtSecret, 'me')

  app.get('/me', {
    schema: {
      operationId: 'getMe',
      tags: ['partners'],
      summary: 'The authenticated user and one page of their brands',
      querystring: MeQuery,
      response: { 200: MeResponse, ...protectedErrorResponses },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request): Promise<MeResponse> => {
    const { userId, name } = request.principal
    let after: number | undefined
    if (request.query.cursor !== undefined) {
      after = decodeMeCursor(cursors, userId, request.query.cursor)
      if (after === undefined) throw validationError([{ ...cursorIssue('cursor_invalid'), msg: 'Invalid cursor' }])
    }
    const page = await app.services.partners.brandPage(userId, request.query.limit, after)
    return {
      name,
      brands: page.brands,
      next_cursor: page.nextAfterBrandId === undefined ? null : encodeMeCursor(cursors, userId, page.nextAfterBrandId),
    }
  })
}
