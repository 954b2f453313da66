import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { validationError } from '../../../domain/errors.js'
import type { AggAnalyticsReport, AnalyticsRequest } from '../../../domain/analytics.js'
import { CursorCodec } from '../../cursors/codec.js'
import { decodeDailyCursor, encodeDailyCursor } from '../../cursors/analytics-cursor.js'
import { platformCodes, sortedIds } from '../../query/lists.js'
import { cursorIssue, periodOf, periodRule } from '../../query/period-rule.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { AggReport, AnalyticsQuery, AnalyticsResponse } from '../../schemas/analytics.schemas.js'
import { BareDetailBody, ErrorBody, reportErrorResponses } from '../../schemas/errors.schemas.js'
import { reportJson } from './report-json.js'

/**
 * GET /analytics/ (and /analytics, the same route: docs/api-reference.md "Basics"). After the access hook's
 * 401: parameters (422, all at once) → account_id/platform (400) → brands (403) → accounts (404).
 */
export const getAnalyticsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cursors = new CursorCodec(app.config.jwtSecret, 'analytics')
  const schema = {
    operationId: 'getAnalytics',
    tags: ['analytics'],
    summary: 'Daily, monthly or aggregated metrics of accessible brands or accounts',
    description: 'Also served at `/analytics` (no trailing slash). `type` selects the report and its shape: DailyReport (paged, 20 entries), MonthlyReport or AggReport.',
    querystring: AnalyticsQuery,
    response: { 200: AnalyticsResponse, 400: BareDetailBody, 404: ErrorBody, ...reportErrorResponses },
  }
  const config = { access: PARTNER_ROUTE, internalErrorDetail: 'Error fetching analytics', queryRules: [periodRule] }

  async function handle (request: FastifyRequest<{ Querystring: AnalyticsQuery }>, reply: FastifyReply) {
    const query = request.query
    const asked: AnalyticsRequest = {
      type: query.type,
      period: periodOf(query, request.today),
      brandIds: sortedIds(query.brand_id),
      accountIds: sortedIds(query.account_id),
      platforms: platformCodes(query.platform),
      splitByPlatform: query.split_by_platform,
    }
    // A cursor is only meaningful for daily pages, and only judged once the rest is valid.
    if (asked.type === 'daily' && query.cursor !== undefined) {
      asked.after = decodeDailyCursor(cursors, asked, query.cursor)
      if (asked.after === undefined) throw validationError([cursorIssue('cursor_invalid')])
    }
    const scope = await app.services.access.resolveScope(request.principal, asked)
    const report = await app.services.analytics.report(scope, asked)
    if (report.type === 'daily') {
      const next = report.next === undefined ? undefined : encodeDailyCursor(cursors, asked, report.next)
      return await reply.type(JSON_TYPE).send(reportJson(report, next))
    }
    if (report.type === 'monthly') return await reply.type(JSON_TYPE).send(reportJson(report, undefined))
    return await reply.serializer(reply.compileSerializationSchema(AggReport)).send(envelopeOf(report))
  }

  app.get('/analytics/', { schema, config }, handle)
  app.get('/analytics', { schema: { ...schema, hide: true }, config }, handle)
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * An agg report as the wire shows it (docs/api-reference.md "GET /analytics/" "Envelopes"),
 * serialized by the AggReport schema (the documented 200 is the union of the three reports).
 */
function envelopeOf (report: AggAnalyticsReport): Record<string, unknown> {
  return {
    data: report.entries,
    total: report.entries.length,
    aggregates: report.aggregates,
    since: report.period.since,
    until: report.period.until,
    platforms: report.platforms ?? 'all',
    brand_ids: report.brandIds,
    brand_id: report.singleBrandId,
  }
}
