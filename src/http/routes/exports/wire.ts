import type { ExportJob as ExportJobView } from '../../../services/exports/exports.service.js'
import type { ExportFile } from '../../../domain/exports.js'
import type { ExportJob } from '../../schemas/exports.schemas.js'

/** An export job and its files as the wire shows them (docs/api-reference.md "Exports"). */

export function fileJson (exportId: string, file: ExportFile): ExportJob['files'] extends Array<infer F> | null ? F : never {
  return { name: file.name, rows: file.rows, bytes: file.bytes, sha256: file.sha256, url: `/exports/${exportId}/files/${encodeURIComponent(file.name)}` }
}

export function exportJson (job: ExportJobView, changedSinceCursor: string | null): ExportJob {
  const { request } = job
  return {
    id: job.id,
    status: job.status,
    dataset: request.dataset,
    format: request.format,
    compression: request.compression,
    since: request.since ?? null,
    until: request.until ?? null,
    brand_ids: request.brandIds ?? null,
    account_ids: request.accountIds ?? null,
    platforms: request.platforms ?? null,
    changed_since_cursor: changedSinceCursor,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
    expires_at: job.expiresAt,
    progress: { rows_written: job.rowsWritten, rows_estimate: job.rowsEstimate },
    error: job.error,
    files: job.files === null || job.expired ? null : job.files.map((file) => fileJson(job.id, file)),
  }
}
