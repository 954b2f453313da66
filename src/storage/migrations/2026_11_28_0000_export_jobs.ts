import { sql, type Kysely } from 'kysely'

/**
 * Bulk export jobs (docs/exports.md; docs/storage.md "Export jobs"): one row per job, claimed by
 * the export worker with a lease as the webhook outbox's deliveries are (`lease_until_ms`,
 * `lease_token`): a killed instance's job is claimed again once its lease has run out. The
 * request, the files and the manifest's facts are JSON text; queue times are integer ms.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

export async function up (db: AnyDb): Promise<void> {
  await db.schema.createTable('export_jobs')
    .addColumn('export_id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.user_id').onDelete('cascade'))
    .addColumn('dataset', 'text', (col) => col.notNull())
    .addColumn('format', 'text', (col) => col.notNull())
    .addColumn('compression', 'text', (col) => col.notNull())
    /** The normalised request (ExportRequest) as JSON. */
    .addColumn('request', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('rows_written', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('rows_estimate', 'bigint')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    /** JSON array of {name, rows, bytes, sha256} once succeeded. */
    .addColumn('files', 'text')
    /** The sync and the last change event the export read at (its snapshot). */
    .addColumn('sync_id', 'bigint')
    .addColumn('event_id', 'bigint')
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('lease_until_ms', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    /** When the files go (EXPORT_RETENTION_HOURS after the job finished). */
    .addColumn('expires_at', 'timestamptz')
    /** Set when the retention removed the files: the job answers 410 from then on. */
    .addColumn('expired', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
  // A partner's jobs, newest first (GET /exports).
  await db.schema.createIndex('export_jobs_user_idx').on('export_jobs').columns(['user_id', 'created_at', 'export_id']).execute()
  // The claim reads only queued and running jobs.
  await db.schema.createIndex('export_jobs_active_idx').on('export_jobs').columns(['status', 'created_at'])
    .where(sql.ref('status'), 'in', [sql.lit('queued'), sql.lit('running')]).execute()
}

export async function down (db: AnyDb): Promise<void> {
  await db.schema.dropTable('export_jobs').execute()
}
