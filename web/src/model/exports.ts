import type { CreateExportBody, ExportJob } from '../../../packages/client/src/types.js'
import type { Period } from './period.js'

/**
 * The Exports view's pure parts (docs/exports.md): the POST /exports body from the form, and how a
 * job's state, progress and files are written on the page.
 */

export const DATASETS = ['daily', 'posts', 'accounts'] as const
export type Dataset = (typeof DATASETS)[number]
export const FORMATS = ['parquet', 'csv', 'ndjson'] as const
export type ExportFormat = (typeof FORMATS)[number]

export const DATASET_LABELS: Record<Dataset, string> = {
  daily: 'Daily metrics (one row per account and day)',
  posts: 'Posts (one row per post)',
  accounts: 'Accounts (with their coverage)',
}

export const FORMAT_LABELS: Record<ExportFormat, string> = {
  parquet: 'Parquet (zstd)',
  csv: 'CSV (gzip)',
  ndjson: 'NDJSON (gzip)',
}

export interface ExportForm {
  dataset: Dataset
  format: ExportFormat
  /** 'history': every day of each account (no since/until sent); 'period': the dates below. */
  range: 'history' | 'period'
  period: Period
  /** A brand id, or null for every accessible brand (no brand_id sent: the brands granted when the job runs). */
  brand: number | null
}

/** The body of POST /exports. The API's defaults stand where the form leaves them (compression by format). */
export function exportBody (form: ExportForm): CreateExportBody {
  return {
    dataset: form.dataset,
    format: form.format,
    ...(form.range === 'period' ? { since: form.period.since, until: form.period.until } : {}),
    ...(form.brand !== null ? { brand_id: [form.brand] } : {}),
  }
}

/** Whether the job may still change (the page polls GET /exports/{id} while it is). */
export function isUnderway (job: Pick<ExportJob, 'status'>): boolean {
  return job.status === 'queued' || job.status === 'running'
}

/** "12,345 of about 40,000 rows (30 %)", "12,345 rows", or "waiting for a worker". */
export function describeProgress (job: Pick<ExportJob, 'status' | 'progress'>): string {
  if (job.status === 'queued') return 'Queued: waiting for a worker'
  const written = job.progress.rows_written
  const estimate = job.progress.rows_estimate
  const rows = `${written.toLocaleString('en-US')} ${written === 1 ? 'row' : 'rows'}`
  if (estimate === null || estimate === 0) return job.status === 'running' ? `Running: ${rows} written` : `${rows} written`
  const share = Math.min(100, Math.floor(written / estimate * 100))
  return `${job.status === 'running' ? 'Running: ' : ''}${rows} of ${estimate.toLocaleString('en-US')} written (${share} %)`
}

/** "1.4 MB", "812 KB", "90 bytes": 1024-based, one decimal from MB on. */
export function formatBytes (bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** What the job holds, in words: "daily, 2026-10-01 – 2026-10-28, brand 3, CSV gzip". */
export function describeJob (job: Pick<ExportJob, 'dataset' | 'format' | 'compression' | 'since' | 'until' | 'brand_ids' | 'platforms'>, brandName: (id: number) => string): string {
  const period = job.since === null && job.until === null ? 'whole history' : `${job.since ?? 'first day'} – ${job.until ?? 'last day'}`
  const brands = job.brand_ids === null ? 'every brand' : job.brand_ids.map(brandName).join(', ')
  const platforms = job.platforms === null ? '' : `, ${job.platforms.join(', ')}`
  return `${job.dataset}, ${period}, ${brands}${platforms}, ${job.format}${job.compression === 'none' ? '' : ` ${job.compression}`}`
}
