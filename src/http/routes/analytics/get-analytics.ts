import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { validationError } from '../../../domain/errors.js'
import type { AggAnalyticsReport, AnalyticsReport, AnalyticsRequest } from '../../../domain/analytics.js'
import { CursorCodec } from '../../cursors/codec.js'
import { decodeDailyCursor, encodeDailyCursor } from '../../cursors/analytics-cursor.js'
import { platformCodes, sortedIds } from '../../query/lists.js'
import { cursorIssue, periodOf, periodRule } from '../../query/period-rule.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { AggReport, AnalyticsQuery, AnalyticsResponse } from '../../schemas/analytics.schemas.js'
import { BareDetailBody, ErrorBody, reportErrorResponses } from '../../schemas/errors.schemas.js'
import { taggedBody, type TaggedBody } from '../../plugins/conditional-get.js'
import { reportJson } from './report-json.js'

/** Where a report keeps its body and ETag once written (a property, not a WeakMap: no weak entry per request for the GC). */
const BODY = Symbol('body')

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
      withStatus: query.include?.includes('status') === true,
      gaps: query.gaps,
    }
    // A cursor is only meaningful for daily pages, and only judged once the rest is valid.
    if (asked.type === 'daily' && query.cursor !== undefined) {
      asked.after = decodeDailyCursor(cursors, asked, query.cursor)
      if (asked.after === undefined) throw validationError([cursorIssue('cursor_invalid')])
    }
    const scope = await app.services.access.resolveScope(request.principal, asked)
    const report = await app.services.analytics.report(scope, asked)
    // A kept report (src/services/analytics/report-cache.ts) comes back as the same object: its
    // body and ETag were written the first time. The reply is JSON already (src/http/media-type.ts).
    const written = report as AnalyticsReport & { [BODY]?: TaggedBody }
    const tagged = written[BODY] ?? (written[BODY] = taggedBody(bodyOf(report, asked, reply)))
    reply.taggedBody = tagged
    return await reply.send(tagged.body)
  }

  /** The report's body: daily pages and monthly reports written around their entries' JSON, agg by its schema. */
  function bodyOf (report: AnalyticsReport, asked: AnalyticsRequest, reply: FastifyReply): string {
    if (report.type === 'daily') return reportJson(report, report.next === undefined ? undefined : encodeDailyCursor(cursors, asked, report.next))
    if (report.type === 'monthly') return reportJson(report, undefined)
    // Fastify compiles the schema's serializer once and keeps it.
    return reply.compileSerializationSchema(AggReport)(envelopeOf(report)) as string
  }

  app.get('/analytics/', { schema, config }, handle)
  app.get('/analytics', { schema: { ...schema, hide: true }, config }, handle)
}

/**
 * An agg report as the wire shows it (docs/api-reference.md "GET /analytics/" "Envelopes"),
 * serialized by the AggReport schema (the documented 200 is the union of the three reports).
 */
function envelopeOf (report: AggAnalyticsReport): Record<string, unknown> {
  const { statuses } = report
  return {
    data: statuses === undefined ? report.entries : report.entries.map((entry, index) => ({ ...entry, ...statuses[index] })),
    total: report.entries.length,
    aggregates: report.aggregates,
    since: report.period.since,
    until: report.period.until,
    platforms: report.platforms ?? 'all',
    brand_ids: report.brandIds,
    brand_id: report.singleBrandId,
    data_through: report.through?.dataThrough,
    not_synced: report.through?.notSynced,
  }
}
