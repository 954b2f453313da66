import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { PLATFORM_CODES } from '../../../domain/platforms.js'
import { issue, validationError } from '../../../errors.js'
import { listBrandPage } from '../../../partners/me.service.js'
import { CursorCodec } from '../../cursor.js'
import { protectedErrorResponses } from '../../schemas/errors.schemas.js'

const AccountReference = Type.Object({
  account_id: Type.Integer(),
  account_name: Type.String(),
  network_id: Type.Union([Type.String(), Type.Null()], { description: 'Platform-specific identifier' }),
})

const MeBrand = Type.Object({
  brand_id: Type.Integer(),
  brand_name: Type.String(),
  ...Object.fromEntries(PLATFORM_CODES.map((code) => [`${code}_accounts`, Type.Array(AccountReference)])),
})

export const MeResponse = Type.Object({
  name: Type.String({ description: 'User display name' }),
  brands: Type.Array(MeBrand, { description: 'One page of accessible brands, by brand_id ascending' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
})
export type MeResponse = Static<typeof MeResponse>

const MeQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Brands per page, 1 to 100' }),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
})

/** GET /me (SPEC.md, DECISIONS.md §5). The cursor is bound to the user, not to `limit`. */
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
  }, async (request) => {
    const { userId, name } = request.user
    let after: number | undefined
    if (request.query.cursor !== undefined) {
      after = afterBrandIdOf(cursors.decode(request.query.cursor, { user_id: userId }))
      if (after === undefined) throw validationError([issue(['query', 'cursor'], 'Invalid cursor', 'value_error')])
    }
    const page = await listBrandPage(app.store.db, userId, request.query.limit, after)
    return {
      name,
      brands: page.brands,
      next_cursor: page.nextAfterBrandId === undefined ? null : cursors.encode({ after: page.nextAfterBrandId }, { user_id: userId }),
    }
  })
}

function afterBrandIdOf (payload: unknown): number | undefined {
  if (payload === null || typeof payload !== 'object') return undefined
  const after = (payload as { after?: unknown }).after
  return typeof after === 'number' && Number.isSafeInteger(after) ? after : undefined
}
