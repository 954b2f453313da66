import { METRIC_CATALOG, REPORTED_METRICS, type MetricUnit } from './metric-catalog.js'
import type { PlatformCode } from './platforms.js'
import { POST_COUNT_METRICS, POST_TEXT_FIELDS } from './post-fields.js'

/**
 * Bulk export jobs (docs/exports.md): what a partner may ask for, the columns of each dataset
 * (read from the metric catalogue, so a new metric is a new column) and the job's life cycle.
 */

export const EXPORT_DATASETS = ['daily', 'posts', 'accounts'] as const
export type ExportDataset = (typeof EXPORT_DATASETS)[number]

export const EXPORT_FORMATS = ['parquet', 'csv', 'ndjson'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** gzip or none for csv/ndjson; zstd or snappy for Parquet (compressed inside the file). */
export const EXPORT_COMPRESSIONS = ['gzip', 'none', 'zstd', 'snappy'] as const
export type ExportCompression = (typeof EXPORT_COMPRESSIONS)[number]

export const EXPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type ExportStatus = (typeof EXPORT_STATUSES)[number]

/** Raised when a dataset's columns change meaning or type (a new metric column does not change it). */
export const EXPORT_SCHEMA_VERSION = 1

/** The compression a format gets when none is asked for. */
export function defaultCompression (format: ExportFormat): ExportCompression {
  return format === 'parquet' ? 'zstd' : 'gzip'
}

/** Whether a compression goes with a format (gzip/none: text formats; zstd/snappy: Parquet). */
export function compressionFits (format: ExportFormat, compression: ExportCompression): boolean {
  return format === 'parquet' ? compression === 'zstd' || compression === 'snappy' : compression === 'gzip' || compression === 'none'
}

/** A job's request once normalised: ids ascending, platform codes in canonical order, the period resolved. */
export interface ExportRequest {
  dataset: ExportDataset
  format: ExportFormat
  compression: ExportCompression
  /** Inclusive; undefined: from each account's first day. */
  since?: string
  /** Inclusive; undefined: through each account's last day. */
  until?: string
  brandIds?: number[]
  accountIds?: number[]
  platforms?: PlatformCode[]
  /** changed_since_cursor: only the rows that analytics.updated events after this event number touched. */
  changedAfterEvent?: number
}

/** Column types as Parquet (through DuckDB) writes them. */
export type ExportColumnType = 'DATE' | 'TIMESTAMP' | 'BIGINT' | 'DECIMAL(18,6)' | 'VARCHAR'

export interface ExportColumn {
  name: string
  type: ExportColumnType
  nullable: boolean
  /** From the metric catalogue for metric columns; null for keys and names. */
  unit: MetricUnit | null
  description: string
}

function key (name: string, type: ExportColumnType, description: string, nullable = false): ExportColumn {
  return { name, type, nullable, unit: null, description }
}

function metricColumn (name: string): ExportColumn {
  const definition = METRIC_CATALOG.find((metric) => metric.name === name)
  const unit = definition?.unit ?? 'count'
  return {
    name,
    type: unit === 'currency' ? 'DECIMAL(18,6)' : 'BIGINT',
    nullable: true,
    unit,
    description: `${definition?.description ?? name}; NULL where not reported`,
  }
}

const DAILY_COLUMNS: readonly ExportColumn[] = [
  key('date', 'DATE', 'The day (UTC)'),
  key('brand_id', 'BIGINT', 'The account\'s brand'),
  key('platform', 'VARCHAR', 'Platform code (fb, ig, tk, yt, li, th, sc, da, pi)'),
  key('account_id', 'BIGINT', 'Account id, unique within its platform'),
  // Every metric accounts report per day, in catalogue order; revenue exact (micro-units as a decimal).
  ...REPORTED_METRICS.map(metricColumn),
]

const POST_METRIC_COLUMNS: readonly ExportColumn[] = [...POST_COUNT_METRICS.map(metricColumn), metricColumn('revenue')]

const POSTS_COLUMNS: readonly ExportColumn[] = [
  key('id', 'VARCHAR', 'The platform\'s own post id (unique within its platform)'),
  key('platform', 'VARCHAR', 'Platform code'),
  key('account_id', 'BIGINT', 'Account id'),
  key('brand_id', 'BIGINT', 'The account\'s brand'),
  key('created_time', 'TIMESTAMP', 'When the post was published (UTC)'),
  key('type', 'VARCHAR', 'The platform\'s own type, as imported', true),
  key('post_type', 'VARCHAR', 'The post\'s category (video, image, reel, …)'),
  ...POST_TEXT_FIELDS.map((field) => key(field, 'VARCHAR', `The post's ${field.replace('_', ' ')}`, true)),
  ...POST_METRIC_COLUMNS,
]

const ACCOUNTS_COLUMNS: readonly ExportColumn[] = [
  key('platform', 'VARCHAR', 'Platform code'),
  key('account_id', 'BIGINT', 'Account id, unique within its platform'),
  key('brand_id', 'BIGINT', 'The account\'s brand'),
  key('brand_name', 'VARCHAR', 'The brand\'s name'),
  key('account_name', 'VARCHAR', 'The account\'s name'),
  key('network_id', 'VARCHAR', 'The account\'s id on its network', true),
  key('storage_avatar', 'VARCHAR', 'Avatar URL', true),
  key('permalink', 'VARCHAR', 'Profile URL', true),
  key('first_date', 'DATE', 'First day with a daily row (NULL: none yet)', true),
  key('last_date', 'DATE', 'Last day with a daily row (NULL: none yet)', true),
  key('synced_at', 'TIMESTAMP', 'When an import last changed the account\'s data', true),
]

export function datasetColumns (dataset: ExportDataset): readonly ExportColumn[] {
  if (dataset === 'daily') return DAILY_COLUMNS
  if (dataset === 'posts') return POSTS_COLUMNS
  return ACCOUNTS_COLUMNS
}

/** A row as read: values in column order (dates and timestamps as text, revenue as an exact decimal text). */
export type ExportRow = Array<string | number | null>

/** Micro-units as an exact decimal text with at least 2 decimals: 12500000 → "12.50", 1234567 → "1.234567". */
export function microsToDecimal (micros: number): string {
  const negative = micros < 0
  const abs = Math.abs(micros)
  const whole = Math.floor(abs / 1_000_000)
  const fraction = String(abs % 1_000_000).padStart(6, '0').replace(/0{1,4}$/, '')
  return `${negative ? '-' : ''}${whole}.${fraction}`
}

/** The file extension of a format and compression. */
export function fileExtension (format: ExportFormat, compression: ExportCompression): string {
  if (format === 'parquet') return 'parquet'
  return compression === 'gzip' ? `${format}.gz` : format
}

/** What a job ended with, when it failed. */
export const EXPORT_ERROR_CODES = ['FORBIDDEN', 'TOO_LARGE', 'TIMEOUT', 'STORE_UNSUPPORTED', 'TOO_MANY_CHANGES', 'INTERNAL'] as const
export type ExportErrorCode = (typeof EXPORT_ERROR_CODES)[number]

export interface ExportFile {
  name: string
  rows: number
  bytes: number
  sha256: string
}
