import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { validationError } from '../../../domain/errors.js'
import { DEFAULT_GAPS_MODE } from '../../../domain/gaps/modes.js'
import type { ReportResult, ReportRow } from '../../../domain/report-result.js'
import { timeDimensionOf, type ReportRequest } from '../../../domain/reports.js'
import { CursorCodec } from '../../cursors/codec.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { BareDetailBody, ErrorBody, reportErrorResponses } from '../../schemas/errors.schemas.js'
import { ReportQuery, ReportRequestBody, ReportResponse } from '../../schemas/reports.schemas.js'
import { issuesFromAjv, type AjvIssue } from '../../validation-issues.js'
import { bodyOfQuery, reportRequestOf } from './report-request.js'

/**
 * POST /reports, and GET /reports with the same request in its query string (docs/reports.md).
 * After the access hook's 401: the request (422, all at once) → account_id/platform (400) →
 * brands (403) → accounts (404) → the size bound (422) → the report (503 when the heavy lane is full).
 */
export const reportsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const cursors = new CursorCodec(app.config.jwtSecret, 'reports')
  const responses = { 200: ReportResponse, 400: BareDetailBody, 404: ErrorBody, ...reportErrorResponses }
  const config = { access: PARTNER_ROUTE, internalErrorDetail: 'Error fetching the report' }

  async function answer (request: FastifyRequest, reply: FastifyReply, body: ReportRequestBody, location: 'body' | 'query'): Promise<ReportResponse> {
    const { request: asked, issues } = reportRequestOf(body, request.today, location)
    if (body.cursor !== undefined && issues.length === 0) {
      const offset = cursors.decode(body.cursor, bindingOf(asked))
      if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
        issues.push({ loc: [location, 'cursor'], msg: 'Invalid cursor: use the next_cursor of a response to this same request', type: 'cursor_invalid', ctx: {} })
      } else asked.offset = offset
    }
    if (issues.length > 0) throw validationError(issues)
    const scope = await app.services.access.resolveScope(request.principal, asked)
    const result = await app.services.reports.run(scope, asked)
    return envelopeOf(result, asked, result.nextOffset === undefined ? undefined : cursors.encode(result.nextOffset, bindingOf(asked)))
  }

  app.post('/reports', {
    schema: {
      operationId: 'runReport',
      tags: ['reports'],
      summary: 'A report: any metrics of the catalogue by dimensions, with filters, order, top-N, comparison and totals',
      body: ReportRequestBody,
      response: responses,
    },
    config,
  }, async (request, reply) => await answer(request, reply, request.body, 'body'))

  app.get('/reports', {
    schema: {
      operationId: 'getReport',
      tags: ['reports'],
      summary: 'The same report as POST /reports, asked in the query string (lists comma-separated or repeated)',
      querystring: ReportQuery,
      response: responses,
    },
    config,
  }, async (request, reply) => {
    const rawQuery = request.raw.url?.split('?')[1] ?? ''
    const body = bodyOfQuery(request.query, rawQuery)
    const validate = request.compileValidationSchema(ReportRequestBody)
    if (!validate(body)) throw validationError(issuesFromAjv('query', (validate.errors ?? []) as unknown as AjvIssue[]))
    return await answer(request, reply, body as ReportRequestBody, 'query')
  })
}

/**
 * A cursor is bound to the whole request but its page position (limit included: a page is a slice).
 * `gaps` binds only when it is not the default, so that a request without it keeps its cursors.
 */
function bindingOf (request: ReportRequest): unknown {
  const { offset: _offset, gaps, ...rest } = request
  return gaps === DEFAULT_GAPS_MODE ? rest : { ...rest, gaps }
}

function rowJson (row: ReportRow, time: string | undefined): Record<string, unknown> {
  const { keys } = row
  const json: Record<string, unknown> = {}
  if (time !== undefined) json[time] = keys.time
  if (keys.platform !== undefined) json.platform = keys.platform
  if (keys.brandId !== undefined) {
    json.brand_id = keys.brandId
    json.brand_name = keys.brandName
  }
  if (keys.accountId !== undefined) {
    json.account_id = keys.accountId
    json.account_name = keys.accountName
  }
  json.metrics = row.metrics
  if (row.status !== undefined) {
    json.accounts_expected = row.status.accountsExpected
    json.accounts_reported = row.status.accountsReported
  }
  if (row.comparison === null) json.comparison = null
  else if (row.comparison !== undefined) {
    const { comparison } = row
    json.comparison = {
      ...(time === undefined ? {} : { [time]: comparison.time }),
      complete: comparison.complete,
      metrics: comparison.metrics,
      change: comparison.change,
      relative_change: comparison.relativeChange,
    }
  }
  return json
}

function envelopeOf (result: ReportResult, asked: ReportRequest, nextCursor: string | undefined): ReportResponse {
  const time = timeDimensionOf(result.dimensions)
  const envelope: Record<string, unknown> = {
    rows: result.rows.map((row) => rowJson(row, time)),
    total: result.rows.length,
    total_rows: result.totalRows,
    next_cursor: nextCursor,
    since: result.period.since,
    until: result.period.until,
    dimensions: result.dimensions,
    metrics: result.metrics,
    platforms: asked.platforms ?? 'all',
    brand_ids: result.brandIds,
    totals: result.totals,
    comparison: result.comparison === undefined
      ? undefined
      : { since: result.comparison.period.since, until: result.comparison.period.until, totals: result.comparison.totals },
    cost: {
      requests: 1,
      rows_estimate: result.cost.rowsEstimate,
      account_days_read: result.cost.accountDaysRead,
      heavy: result.cost.heavy,
    },
  }
  return envelope as ReportResponse
}
