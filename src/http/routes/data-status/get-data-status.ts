import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { validationError } from '../../../domain/errors.js'
import { CursorCodec } from '../../cursors/codec.js'
import { decodeDataStatusCursor, encodeDataStatusCursor, type DataStatusBinding } from '../../cursors/data-status-cursor.js'
import { platformCodes, sortedIds } from '../../query/lists.js'
import { cursorIssue, periodOf, periodRule } from '../../query/period-rule.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { DataStatusPage, DataStatusQuery } from '../../schemas/data-status.schemas.js'
import { BareDetailBody, ErrorBody, reportErrorResponses } from '../../schemas/errors.schemas.js'

/**
 * GET /data-status (docs/api-reference.md "Data status"): per account in scope, its coverage and
 * the days of the period it reported and missed. The scope and period rules are /analytics/'s:
 * after the access hook's 401, parameters (422) → account_id/platform (400) → brands (403) →
 * accounts (404).
 */
export const getDataStatusRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cursors = new CursorCodec(app.config.jwtSecret, 'data-status')
  app.get('/data-status', {
    schema: {
      operationId: 'getDataStatus',
      tags: ['analytics'],
      summary: 'How complete each account\'s data is: coverage, last sync, and the missing days of a period',
      querystring: DataStatusQuery,
      response: { 200: DataStatusPage, 400: BareDetailBody, 404: ErrorBody, ...reportErrorResponses },
    },
    config: { access: PARTNER_ROUTE, queryRules: [periodRule] },
  }, async (request): Promise<DataStatusPage> => {
    const query = request.query
    const asked: DataStatusBinding = {
      period: periodOf(query, request.today),
      brandIds: sortedIds(query.brand_id),
      accountIds: sortedIds(query.account_id),
      platforms: platformCodes(query.platform),
    }
    let after
    if (query.cursor !== undefined) {
      after = decodeDataStatusCursor(cursors, asked, query.cursor)
      if (after === undefined) throw validationError([cursorIssue('cursor_invalid')])
    }
    const scope = await app.services.access.resolveScope(request.principal, asked)
    const page = await app.services.dataStatus.page(scope, { period: asked.period, limit: query.limit, after })
    return {
      data: page.accounts,
      total: page.accounts.length,
      since: page.period.since,
      until: page.period.until,
      platforms: asked.platforms ?? 'all',
      brand_ids: page.brandIds,
      brand_id: page.singleBrandId,
      next_cursor: page.next === undefined ? null : encodeDataStatusCursor(cursors, asked, page.next),
    }
  })
}
