import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { resolveScope } from '../../../access/scope.js'
import { fetchAnalytics } from '../../../analytics/analytics.service.js'
import { parseAnalyticsQuery } from '../../../analytics/params.js'
import { listAccessibleBrandIds } from '../../../auth/brand-access.js'
import { CursorCodec } from '../../cursor.js'
import { utcToday } from '../../params.js'
import { AnalyticsQuery, AnalyticsResponse } from '../../schemas/analytics.schemas.js'
import { BareDetailBody, ErrorBody, protectedErrorResponses } from '../../schemas/errors.schemas.js'

/**
 * GET /analytics and /analytics/ (SPEC.md, DECISIONS.md §6). Check order after the auth hook's
 * 401: parameters (422, all at once) → account_id/platform (400) → brands (403) → accounts (404).
 */
export const getAnalyticsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cursors = new CursorCodec(app.config.jwtSecret, 'analytics')

  for (const url of ['/analytics', '/analytics/']) {
    app.get(url, {
      schema: {
        operationId: url === '/analytics/' ? 'getAnalytics' : 'getAnalyticsNoSlash',
        tags: ['analytics'],
        summary: 'Daily, monthly or aggregated metrics of accessible brands or accounts',
        querystring: AnalyticsQuery,
        response: { 200: AnalyticsResponse, 400: BareDetailBody, 404: ErrorBody, ...protectedErrorResponses },
      },
      config: { internalErrorDetail: 'Error fetching analytics' },
    }, async (request) => {
      const parsed = parseAnalyticsQuery(request.query, { today: utcToday(), cursors })
      const accessible = await listAccessibleBrandIds(app.store.db, request.user.userId)
      const scope = await resolveScope(app.store.db, accessible, parsed)
      // The service builds plain records; the response schema is the contract it is serialized by.
      return await fetchAnalytics(app.store, parsed, scope, cursors) as AnalyticsResponse
    })
  }
}
