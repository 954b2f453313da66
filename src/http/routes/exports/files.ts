import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { AppError } from '../../../domain/errors.js'
import { unfilteredChangesCursor } from '../../cursors/changes-cursor.js'
import { noneMatch } from '../../plugins/conditional-get.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { ErrorBody, protectedErrorResponses } from '../../schemas/errors.schemas.js'
import { ExportFileParams, ExportManifest, ExportParams } from '../../schemas/exports.schemas.js'
import { fileJson } from './wire.js'

/**
 * A succeeded export's manifest and files (docs/exports.md "Files and the manifest"). Files are
 * streamed through the API from wherever they live (a folder or S3-compatible storage), with an
 * ETag (the file's SHA-256) and single byte ranges, so an interrupted download resumes. 409 while
 * the job has not succeeded, 410 once the retention removed its files.
 */

const MEDIA_TYPES: Record<string, string> = {
  parquet: 'application/vnd.apache.parquet',
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
  gz: 'application/gzip',
}

function mediaTypeOf (name: string): string {
  return MEDIA_TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream'
}

/**
 * The one range of a `Range: bytes=…` header (RFC 9110 §14.2), or undefined to send the whole
 * file (no header, another unit, several ranges); null when no byte of the file satisfies it.
 */
export function parseRange (header: string | undefined, size: number): { start: number, end: number } | undefined | null {
  if (header === undefined) return undefined
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null) return undefined
  const [, first = '', last = ''] = match
  if (first === '' && last === '') return undefined
  if (first === '') {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return null
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(first)
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1)
  if (start >= size || start > end) return null
  return { start, end }
}

export const exportFileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const jobs = app.services.exports.jobs
  const changesCursor = unfilteredChangesCursor(app.config.jwtSecret)
  const states = { ...protectedErrorResponses, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody }

  app.get('/exports/:id/manifest', {
    schema: {
      operationId: 'getExportManifest',
      tags: ['exports'],
      summary: 'A succeeded export\'s files, the dataset\'s schema, the sync it was read at and the change-feed cursor to follow from',
      params: ExportParams,
      response: { 200: ExportManifest, ...states },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request): Promise<ExportManifest> => {
    const userId = request.principal.userId
    const manifest = await jobs.manifest(userId, request.params.id)
    const { job } = manifest
    return {
      export_id: job.id,
      dataset: job.request.dataset,
      format: job.request.format,
      compression: job.request.compression,
      schema_version: manifest.schemaVersion,
      schema: { columns: manifest.columns.map((column) => ({ ...column })) },
      files: manifest.files.map((file) => fileJson(job.id, file)),
      rows: manifest.files.reduce((sum, file) => sum + file.rows, 0),
      sync_id: manifest.syncId,
      // Bound to no filter: GET /changes?cursor=… continues right after the export's snapshot.
      changes_cursor: changesCursor(userId, manifest.eventId, app.services.now()),
      created_at: job.createdAt,
      finished_at: job.finishedAt ?? job.createdAt,
      expires_at: job.expiresAt ?? job.createdAt,
    }
  })

  app.get('/exports/:id/files/:name', {
    schema: {
      operationId: 'downloadExportFile',
      tags: ['exports'],
      summary: 'Download one file of a succeeded export (Range and If-None-Match honoured; ETag is the file\'s SHA-256)',
      params: ExportFileParams,
      response: {
        200: Type.String({ format: 'binary', description: 'The file' }),
        206: Type.String({ format: 'binary', description: 'The range asked' }),
        304: Type.Null({ description: 'If-None-Match matched: the file you have is this one' }),
        ...states,
        416: ErrorBody,
      },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request, rawReply) => {
    // A file is a stream, not the schema's JSON: the reply is sent untyped.
    const reply = rawReply as unknown as FastifyReply
    const { file, open } = await jobs.file(request.principal.userId, request.params.id, request.params.name)
    const etag = `"${file.sha256}"`
    reply.header('etag', etag).header('accept-ranges', 'bytes').header('cache-control', 'private, no-cache')
    // A list of tags, `*` or a weak tag match as on every route (RFC 9110 §13.1.2); If-Range below stays strong.
    if (noneMatch(request.headers['if-none-match'], etag)) return await reply.code(304).send()
    const ifRange = request.headers['if-range']
    const rangeHeader = ifRange === undefined || ifRange === etag ? request.headers.range : undefined
    const range = parseRange(rangeHeader, file.bytes)
    if (range === null) {
      reply.header('content-range', `bytes */${file.bytes}`)
      throw new AppError('RANGE_NOT_SATISFIABLE', `The file has ${file.bytes} bytes: no byte of range ${rangeHeader ?? ''} exists`)
    }
    const body = await open(range)
    reply.type(mediaTypeOf(file.name)).header('content-disposition', `attachment; filename="${file.name}"`)
    if (range === undefined) return await reply.header('content-length', String(file.bytes)).send(body)
    return await reply.code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${file.bytes}`)
      .header('content-length', String(range.end - range.start + 1))
      .send(body)
  })
}
