import { Type, type Static } from '@sinclair/typebox'
import { EXPORT_COMPRESSIONS, EXPORT_DATASETS, EXPORT_FORMATS, EXPORT_STATUSES } from '../../domain/exports.js'
import { PLATFORM_ALIASES } from '../../domain/platforms.js'
import { component } from './components.js'
import { DateMember, TimestampMember } from './formats.js'
import { CursorParam, DateParam, StringEnum } from './params.schemas.js'

/** The export routes' requests and answers (docs/exports.md; docs/api-reference.md "Exports"). */

const Ids = (what: string) => Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 100, description: `${what}; at most 100 (duplicates collapse)` })

export const CreateExportBody = Type.Object({
  dataset: StringEnum(EXPORT_DATASETS, { title: 'dataset', description: 'daily: one row per account and day; posts: one row per post; accounts: the accounts with their coverage' }),
  format: Type.Optional(StringEnum(EXPORT_FORMATS, { title: 'format', description: 'parquet (default), csv or ndjson' })),
  compression: Type.Optional(StringEnum(EXPORT_COMPRESSIONS, { title: 'compression', description: 'csv/ndjson: gzip (default) or none; parquet: zstd (default) or snappy' })),
  since: Type.Optional(DateParam('First day, inclusive; omitted: each account\'s first day')),
  until: Type.Optional(DateParam('Last day, inclusive; omitted: each account\'s last day')),
  brand_id: Type.Optional(Ids('Brands to export (each must be accessible: else 403); omitted: every accessible brand')),
  account_id: Type.Optional(Ids('Accounts to export; needs exactly one platform (else 400)')),
  platform: Type.Optional(Type.Array(StringEnum(PLATFORM_ALIASES, { title: 'platform', description: 'a code or name such as fb or facebook' }), { minItems: 1, maxItems: 9, description: 'Platforms to export; omitted: every platform' })),
  changed_since_cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'daily only: export just the rows that analytics.updated events after this change-feed cursor (a manifest\'s `changes_cursor`, or a next_cursor of GET /changes without filters) touched' })),
}, { additionalProperties: false })
export type CreateExportBody = Static<typeof CreateExportBody>

export const ExportParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'The export\'s id, `exp_…`' }),
})

export const ExportFileParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'The export\'s id, `exp_…`' }),
  name: Type.String({ maxLength: 128, description: 'A file name of the export\'s manifest' }),
})

export const EXPORTS_DEFAULT_LIMIT = 20
export const EXPORTS_MAX_LIMIT = 100

export const ExportsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: EXPORTS_MAX_LIMIT, default: EXPORTS_DEFAULT_LIMIT, description: `Jobs per page, 1 to ${EXPORTS_MAX_LIMIT}` }),
  cursor: Type.Optional(CursorParam('next_cursor of the previous page')),
})
export type ExportsQuery = Static<typeof ExportsQuery>

export const ExportFileEntry = component('ExportFile', Type.Object({
  name: Type.String({ description: 'e.g. daily-2026-01.parquet (daily and posts: one file per month, split past EXPORT_MAX_ROWS_PER_FILE rows)' }),
  rows: Type.Integer({ minimum: 0 }),
  bytes: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ description: 'SHA-256 of the file\'s bytes, hex; also its ETag' }),
  url: Type.String({ description: 'Download path (Range and If-None-Match honoured)' }),
}))

export const ExportJob = component('ExportJob', Type.Object({
  id: Type.String({ description: '`exp_` + 24 characters' }),
  status: StringEnum(EXPORT_STATUSES, { description: 'queued → running → succeeded | failed | cancelled' }),
  dataset: StringEnum(EXPORT_DATASETS),
  format: StringEnum(EXPORT_FORMATS),
  compression: StringEnum(EXPORT_COMPRESSIONS),
  since: Type.Union([DateMember('First day asked'), Type.Null()], { description: 'null: from each account\'s first day' }),
  until: Type.Union([DateMember('Last day asked'), Type.Null()], { description: 'null: through each account\'s last day' }),
  brand_ids: Type.Union([Type.Array(Type.Integer()), Type.Null()], { description: 'Brands asked, ascending; null: every brand accessible when the job runs' }),
  account_ids: Type.Union([Type.Array(Type.Integer()), Type.Null()]),
  platforms: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Platform codes asked, canonical order; null: every platform' }),
  changed_since_cursor: Type.Union([Type.String(), Type.Null()], { description: 'The cursor of an incremental export; null for a full one' }),
  created_at: TimestampMember('When the job was created'),
  started_at: Type.Union([TimestampMember('When it first started'), Type.Null()]),
  finished_at: Type.Union([TimestampMember('When it ended'), Type.Null()]),
  expires_at: Type.Union([TimestampMember('When its files are removed (EXPORT_RETENTION_HOURS after it ended); then 410'), Type.Null()]),
  progress: Type.Object({
    rows_written: Type.Integer({ minimum: 0 }),
    rows_estimate: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Rows the export will hold (counted at its snapshot); null until it runs' }),
  }),
  error: Type.Union([Type.Object({ code: Type.String({ description: 'FORBIDDEN, TOO_LARGE, TIMEOUT, TOO_MANY_CHANGES, STORE_UNSUPPORTED or INTERNAL' }), message: Type.String() }), Type.Null()]),
  files: Type.Union([Type.Array(ExportFileEntry), Type.Null()], { description: 'Once succeeded (and until its files expire); null otherwise' }),
}))
export type ExportJob = Static<typeof ExportJob>

export const ExportList = component('ExportList', Type.Object({
  data: Type.Array(ExportJob, { description: 'Newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
}))

export const ExportColumn = component('ExportColumn', Type.Object({
  name: Type.String(),
  type: StringEnum(['DATE', 'TIMESTAMP', 'BIGINT', 'DECIMAL(18,6)', 'VARCHAR'] as const, { description: 'Parquet\'s logical type; CSV and NDJSON write the same values as text and JSON' }),
  nullable: Type.Boolean(),
  unit: Type.Union([StringEnum(['count', 'currency', 'ratio'] as const), Type.Null()], { description: 'From the metric catalogue (GET /catalog/metrics); null for keys and names' }),
  description: Type.String(),
}))

export const ExportManifest = component('ExportManifest', Type.Object({
  export_id: Type.String(),
  dataset: StringEnum(EXPORT_DATASETS),
  format: StringEnum(EXPORT_FORMATS),
  compression: StringEnum(EXPORT_COMPRESSIONS),
  schema_version: Type.Integer({ description: 'Raised when a column changes meaning or type (a new metric adds a column without raising it)' }),
  schema: Type.Object({ columns: Type.Array(ExportColumn) }),
  files: Type.Array(ExportFileEntry),
  rows: Type.Integer({ minimum: 0 }),
  sync_id: Type.Integer({ minimum: 0, description: 'The newest import the export holds (0: none)' }),
  changes_cursor: Type.String({ description: 'A GET /changes cursor positioned exactly at the export\'s snapshot: the events it yields are the changes the files do not hold' }),
  created_at: TimestampMember('When the job was created'),
  finished_at: TimestampMember('When it succeeded'),
  expires_at: TimestampMember('When the files are removed'),
}))
export type ExportManifest = Static<typeof ExportManifest>
