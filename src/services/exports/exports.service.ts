import { randomInt } from 'node:crypto'
import type { Readable } from 'node:stream'
import { formatUtcSeconds } from '../../domain/dates.js'
import { AppError } from '../../domain/errors.js'
import { datasetColumns, EXPORT_SCHEMA_VERSION, type ExportColumn, type ExportFile, type ExportRequest, type ExportStatus } from '../../domain/exports.js'
import type { Store } from '../../storage/db.js'
import {
  cancelExportJob, deleteExportJob, findExportJob, insertExportJob, listExportJobs, type ExportJobRow,
} from '../../storage/exports/export-jobs.repository.js'
import type { ByteRange, ExportFileStore } from '../../storage/exports/file-store.js'

/**
 * A partner's export jobs (docs/exports.md): create (queued for the worker), list, read, cancel
 * or remove, and the finished job's manifest and files. A partner reaches only its own jobs: any
 * other id is 404, as an id that never existed.
 */

export interface ExportJob {
  id: string
  status: ExportStatus
  request: ExportRequest
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  expiresAt: string | null
  /** True once the retention removed the files. */
  expired: boolean
  rowsWritten: number
  rowsEstimate: number | null
  error: { code: string, message: string } | null
  files: ExportFile[] | null
  syncId: number | null
  eventId: number | null
}

export interface ExportManifest {
  job: ExportJob
  files: ExportFile[]
  columns: readonly ExportColumn[]
  schemaVersion: number
  syncId: number
  /** The change feed continues after this event number. */
  eventId: number
}

export interface ExportsService {
  create: (userId: string, request: ExportRequest) => Promise<ExportJob>
  list: (userId: string, limit: number, before?: { createdAt: string, exportId: string }) => Promise<{ jobs: ExportJob[], more: boolean }>
  get: (userId: string, exportId: string) => Promise<ExportJob>
  /** Cancels a queued or running job (returned cancelled), or removes a finished one with its files (undefined). */
  cancelOrRemove: (userId: string, exportId: string) => Promise<ExportJob | undefined>
  /** @throws NOT_FOUND, EXPORT_NOT_READY (409), EXPORT_EXPIRED (410) */
  manifest: (userId: string, exportId: string) => Promise<ExportManifest>
  /** @throws NOT_FOUND (also an unknown file name), EXPORT_NOT_READY, EXPORT_EXPIRED */
  file: (userId: string, exportId: string, name: string) => Promise<{ file: ExportFile, open: (range?: ByteRange) => Promise<Readable> }>
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** `exp_` + 24 base62 characters from the CSPRNG. */
export function generateExportId (): string {
  let id = 'exp_'
  for (let i = 0; i < 24; i++) id += BASE62[randomInt(62)]
  return id
}

export function jobOf (row: ExportJobRow): ExportJob {
  return {
    id: row.export_id,
    status: row.status,
    request: JSON.parse(row.request) as ExportRequest,
    createdAt: formatUtcSeconds(row.created_at),
    startedAt: row.started_at === null ? null : formatUtcSeconds(row.started_at),
    finishedAt: row.finished_at === null ? null : formatUtcSeconds(row.finished_at),
    expiresAt: row.expires_at === null ? null : formatUtcSeconds(row.expires_at),
    expired: Number(row.expired) === 1,
    rowsWritten: Number(row.rows_written),
    rowsEstimate: row.rows_estimate === null ? null : Number(row.rows_estimate),
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    files: row.files === null ? null : JSON.parse(row.files) as ExportFile[],
    syncId: row.sync_id === null ? null : Number(row.sync_id),
    eventId: row.event_id === null ? null : Number(row.event_id),
  }
}

export function createExportsService (deps: { store: Store, files: ExportFileStore, now: () => number, wake: () => void }): ExportsService {
  const { store, files, now } = deps
  const db = store.db

  async function found (userId: string, exportId: string): Promise<ExportJobRow> {
    const row = await findExportJob(db, userId, exportId)
    if (row === undefined) throw new AppError('NOT_FOUND', `Export ${exportId} not found`)
    return row
  }

  async function finished (userId: string, exportId: string): Promise<ExportJob> {
    const job = jobOf(await found(userId, exportId))
    if (job.expired) throw new AppError('EXPORT_EXPIRED', `Export ${exportId}'s files were removed at ${job.expiresAt ?? ''} (kept EXPORT_RETENTION_HOURS after it finished): create the export again`)
    if (job.status !== 'succeeded') throw new AppError('EXPORT_NOT_READY', `Export ${exportId} is ${job.status}: its files exist once it has succeeded`)
    return job
  }

  return {
    create: async (userId, request) => {
      if (request.changedAfterEvent !== undefined) {
        const clock = await db.selectFrom('change_clock').select('purged_through_event_id').executeTakeFirst()
        if (Number(clock?.purged_through_event_id ?? 0) > request.changedAfterEvent) {
          throw new AppError('CURSOR_EXPIRED', 'The change feed no longer holds the events after this cursor (CHANGES_RETENTION_DAYS): export the dataset in full again')
        }
      }
      const row: ExportJobRow = {
        export_id: generateExportId(),
        user_id: userId,
        dataset: request.dataset,
        format: request.format,
        compression: request.compression,
        request: JSON.stringify(request),
        status: 'queued',
        rows_written: 0,
        rows_estimate: null,
        error_code: null,
        error_message: null,
        files: null,
        sync_id: null,
        event_id: null,
        attempts: 0,
        lease_until_ms: null,
        lease_token: null,
        created_at: formatUtcSeconds(now()),
        started_at: null,
        finished_at: null,
        expires_at: null,
        expired: 0,
      }
      await insertExportJob(db, row)
      deps.wake()
      return jobOf(row)
    },
    list: async (userId, limit, before) => {
      const rows = await listExportJobs(db, userId, limit + 1, before)
      return { jobs: rows.slice(0, limit).map(jobOf), more: rows.length > limit }
    },
    get: async (userId, exportId) => jobOf(await found(userId, exportId)),
    cancelOrRemove: async (userId, exportId) => {
      const row = await found(userId, exportId)
      if (row.status === 'queued' || row.status === 'running') {
        const at = formatUtcSeconds(now())
        const cancelled = await cancelExportJob(db, userId, exportId, at, at)
        // A running job's worker sees the cancel at its next lease renewal and removes its files.
        if (cancelled !== undefined) return jobOf(cancelled)
      }
      await files.removeAll(exportId)
      await deleteExportJob(db, userId, exportId)
      return undefined
    },
    manifest: async (userId, exportId) => {
      const job = await finished(userId, exportId)
      return {
        job,
        files: job.files ?? [],
        columns: datasetColumns(job.request.dataset),
        schemaVersion: EXPORT_SCHEMA_VERSION,
        syncId: job.syncId ?? 0,
        eventId: job.eventId ?? 0,
      }
    },
    file: async (userId, exportId, name) => {
      const job = await finished(userId, exportId)
      const file = (job.files ?? []).find((candidate) => candidate.name === name)
      if (file === undefined) throw new AppError('NOT_FOUND', `Export ${exportId} has no file ${name}`)
      return { file, open: async (range) => await files.read(`${exportId}/${name}`, range) }
    },
  }
}
