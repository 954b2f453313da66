import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { isCalendarDate } from '../../../domain/dates.js'
import { validationError, type ValidationIssue } from '../../../domain/errors.js'
import { compressionFits, defaultCompression, type ExportRequest } from '../../../domain/exports.js'
import { CursorCodec } from '../../cursors/codec.js'
import { decodeChangesCursor, encodeChangesCursor } from '../../cursors/changes-cursor.js'
import { platformCodes, sortedIds } from '../../query/lists.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { BareDetailBody, ErrorBody, protectedErrorResponses } from '../../schemas/errors.schemas.js'
import { CreateExportBody, ExportJob, ExportList, ExportParams, ExportsQuery } from '../../schemas/exports.schemas.js'
import { NoContent } from '../../schemas/webhooks.schemas.js'
import { exportJson } from './wire.js'

/**
 * A partner's export jobs (docs/exports.md; docs/api-reference.md "Exports"): create, list, read,
 * cancel or remove. Checks on create: 401 (hook) → 422 (the body, its rules) → 400 → 403 → 404
 * (the scope, as GET /analytics/ decides it). A partner reaches only its own jobs (any other id is 404).
 */
export const exportJobRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const jobs = app.services.exports.jobs
  const changes = new CursorCodec(app.config.jwtSecret, 'changes')
  const pages = new CursorCodec(app.config.jwtSecret, 'exports')
  const withNotFound = { ...protectedErrorResponses, 404: ErrorBody }
  /** The cursor an incremental job was asked with, shown back on the job. */
  const cursorOf = (userId: string, eventNumber: number | undefined, issuedAt: number): string | null =>
    eventNumber === undefined ? null : encodeChangesCursor(changes, { userId, brandIds: undefined, types: undefined }, { eventNumber, issuedAt })
  const json = (userId: string, job: Awaited<ReturnType<typeof jobs.get>>): ExportJob =>
    exportJson(job, cursorOf(userId, job.request.changedAfterEvent, Date.parse(job.createdAt)))

  app.post('/exports', {
    schema: {
      operationId: 'createExport',
      tags: ['exports'],
      summary: 'Queue a bulk export of a dataset (Parquet, CSV or NDJSON files); poll the job, then download its files',
      body: CreateExportBody,
      response: { 202: ExportJob, 400: BareDetailBody, ...withNotFound, 410: ErrorBody },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request, reply): Promise<ExportJob> => {
    const body = request.body
    const userId = request.principal.userId
    const issues: ValidationIssue[] = []
    const format = body.format ?? 'parquet'
    const compression = body.compression ?? defaultCompression(format)
    if (!compressionFits(format, compression)) {
      issues.push({ loc: ['body', 'compression'], msg: format === 'parquet' ? 'parquet files are compressed with zstd or snappy' : `${format} files are compressed with gzip or none`, type: 'compression_format', ctx: { format } })
    }
    if (body.since !== undefined && body.until !== undefined && isCalendarDate(body.since) && isCalendarDate(body.until) && body.since > body.until) {
      issues.push({ loc: ['body', 'since'], msg: 'since must not be after until', type: 'period_order', ctx: {} })
    }
    let changedAfterEvent: number | undefined
    if (body.changed_since_cursor !== undefined) {
      if (body.dataset !== 'daily') {
        issues.push({ loc: ['body', 'changed_since_cursor'], msg: 'changed_since_cursor applies to the daily dataset only', type: 'cursor_dataset', ctx: {} })
      } else {
        const position = decodeChangesCursor(changes, { userId, brandIds: undefined, types: undefined }, body.changed_since_cursor)
        if (position === undefined) issues.push({ loc: ['body', 'changed_since_cursor'], msg: 'Invalid cursor: use an export manifest\'s changes_cursor, or a next_cursor of GET /changes without filters', type: 'cursor_invalid', ctx: {} })
        else changedAfterEvent = position.eventNumber
      }
    }
    if (issues.length > 0) throw validationError(issues)
    const asked: ExportRequest = {
      dataset: body.dataset,
      format,
      compression,
      ...(body.since === undefined ? {} : { since: body.since }),
      ...(body.until === undefined ? {} : { until: body.until }),
      ...(body.brand_id === undefined ? {} : { brandIds: sortedIds(body.brand_id) }),
      ...(body.account_id === undefined ? {} : { accountIds: sortedIds(body.account_id) }),
      ...(body.platform === undefined ? {} : { platforms: platformCodes(body.platform.map((platform) => platform.toLowerCase())) }),
      ...(changedAfterEvent === undefined ? {} : { changedAfterEvent }),
    }
    // 400 → 403 → 404, exactly as GET /analytics/ decides them; the worker applies the grants again when it runs.
    await app.services.access.resolveScope(request.principal, asked)
    const job = await jobs.create(userId, asked)
    reply.code(202).header('location', `/exports/${job.id}`)
    return exportJson(job, body.changed_since_cursor ?? null)
  })

  app.get('/exports', {
    schema: {
      operationId: 'listExports',
      tags: ['exports'],
      summary: 'Your export jobs, newest first',
      querystring: ExportsQuery,
      response: { 200: ExportList, ...protectedErrorResponses },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request) => {
    const userId = request.principal.userId
    let before: { createdAt: string, exportId: string } | undefined
    if (request.query.cursor !== undefined) {
      const payload = pages.decode(request.query.cursor, { user_id: userId })
      if (!Array.isArray(payload) || typeof payload[0] !== 'string' || typeof payload[1] !== 'string') {
        throw validationError([{ loc: ['query', 'cursor'], msg: 'Invalid cursor: use the next_cursor of a response', type: 'cursor_invalid', ctx: {} }])
      }
      before = { createdAt: payload[0], exportId: payload[1] }
    }
    const page = await jobs.list(userId, request.query.limit, before)
    const last = page.jobs.at(-1)
    return {
      data: page.jobs.map((job) => json(userId, job)),
      next_cursor: page.more && last !== undefined ? pages.encode([last.createdAt, last.id], { user_id: userId }) : null,
    }
  })

  app.get('/exports/:id', {
    schema: {
      operationId: 'getExport',
      tags: ['exports'],
      summary: 'One of your export jobs: its status, progress, error or files',
      params: ExportParams,
      response: { 200: ExportJob, ...withNotFound },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request) => json(request.principal.userId, await jobs.get(request.principal.userId, request.params.id)))

  app.delete('/exports/:id', {
    schema: {
      operationId: 'deleteExport',
      tags: ['exports'],
      summary: 'Cancel a queued or running export (200, the job cancelled), or remove a finished one with its files (204)',
      params: ExportParams,
      response: { 200: ExportJob, 204: NoContent, ...withNotFound },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request, reply) => {
    const cancelled = await jobs.cancelOrRemove(request.principal.userId, request.params.id)
    if (cancelled !== undefined) return json(request.principal.userId, cancelled)
    return await reply.code(204).send(null)
  })
}
