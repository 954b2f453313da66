import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import type { Database, ExportJobsTable } from '../database.js'
import type { Dialect } from '../db.js'

/**
 * Export jobs as a queue (docs/storage.md "Export jobs"), claimed like the webhook outbox's
 * deliveries: a worker writes a lease (an expiry and a token of its own) on one job in one
 * statement, and writes anything about the job afterwards only while its token still holds the
 * lease. A running job whose lease ran out (its instance was killed) is due again. The caps are
 * decided in the claim itself: a job is claimed only while fewer than `global` jobs hold a live
 * lease and fewer than `perPartner` of its partner's do, the partner with the fewest running
 * first (then the oldest job), so one partner's queue never holds back another's.
 */

type Db = Kysely<Database> | Transaction<Database>
export type ExportJobRow = Selectable<ExportJobsTable>

export async function insertExportJob (db: Db, row: ExportJobRow): Promise<void> {
  await db.insertInto('export_jobs').values(row).execute()
}

export async function findExportJob (db: Db, userId: string, exportId: string): Promise<ExportJobRow | undefined> {
  return await db.selectFrom('export_jobs').selectAll().where('export_id', '=', exportId).where('user_id', '=', userId).executeTakeFirst()
}

export async function findExportJobById (db: Db, exportId: string): Promise<ExportJobRow | undefined> {
  return await db.selectFrom('export_jobs').selectAll().where('export_id', '=', exportId).executeTakeFirst()
}

/** A partner's jobs, newest first, after `before` (the last job of the previous page). */
export async function listExportJobs (db: Db, userId: string, limit: number, before?: { createdAt: string, exportId: string }): Promise<ExportJobRow[]> {
  return await db.selectFrom('export_jobs').selectAll()
    .where('user_id', '=', userId)
    .$if(before !== undefined, (query) => query.where((eb) => eb.or([
      eb('created_at', '<', (before as { createdAt: string }).createdAt),
      eb.and([eb('created_at', '=', (before as { createdAt: string }).createdAt), eb('export_id', '<', (before as { exportId: string }).exportId)]),
    ])))
    .orderBy('created_at', 'desc').orderBy('export_id', 'desc')
    .limit(limit)
    .execute()
}

export interface ClaimOptions {
  nowMs: number
  startedAt: string
  token: string
  leaseMs: number
  perPartner: number
  global: number
}

/** Leases one due job to `token` within the caps, or returns undefined when none may start now. */
export async function claimExportJob (db: Kysely<Database>, dialect: Dialect, options: ClaimOptions): Promise<ExportJobRow | undefined> {
  const { nowMs } = options
  const claim = async (trx: Db): Promise<ExportJobRow | undefined> => {
    const live = sql`(j.status = 'running' and j.lease_until_ms > ${nowMs})`
    const chosen = await sql<{ export_id: string }>`
      select c.export_id from export_jobs c
      where (c.status = 'queued' or (c.status = 'running' and c.lease_until_ms <= ${nowMs}))
        and (select count(*) from export_jobs j where ${live}) < ${options.global}
        and (select count(*) from export_jobs j where ${live} and j.user_id = c.user_id) < ${options.perPartner}
      order by (select count(*) from export_jobs j where ${live} and j.user_id = c.user_id), c.created_at, c.export_id
      limit 1`.execute(trx)
    const exportId = chosen.rows[0]?.export_id
    if (exportId === undefined) return undefined
    return await trx.updateTable('export_jobs')
      .set((eb) => ({
        status: 'running',
        lease_token: options.token,
        lease_until_ms: nowMs + options.leaseMs,
        started_at: eb.fn.coalesce('started_at', sql.val(options.startedAt)),
        attempts: eb('attempts', '+', 1),
        rows_written: 0,
      }))
      .where('export_id', '=', exportId)
      .where((eb) => eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_until_ms', '<=', nowMs)])]))
      .returningAll()
      .executeTakeFirst()
  }
  // PostgreSQL: claimers on several instances take turns (the caps count live leases, which a
  // parallel claim could miss); SQLite runs a write transaction under its one write lock.
  return await db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(7346912)`.execute(trx)
    else await sql`update export_jobs set attempts = attempts where 0`.execute(trx)
    return await claim(trx)
  })
}

/**
 * Extends the lease and records progress while `token` holds the job and it is still running;
 * false when the lease was lost or the job was cancelled (the worker then stops).
 */
export async function renewExportLease (db: Db, exportId: string, token: string, untilMs: number, progress: { rowsWritten: number, rowsEstimate?: number }): Promise<boolean> {
  const updated = await db.updateTable('export_jobs')
    .set({ lease_until_ms: untilMs, rows_written: progress.rowsWritten, ...(progress.rowsEstimate === undefined ? {} : { rows_estimate: progress.rowsEstimate }) })
    .where('export_id', '=', exportId).where('lease_token', '=', token).where('status', '=', 'running')
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) > 0
}

export async function recordExportSnapshot (db: Db, exportId: string, token: string, snapshot: { syncId: number, eventId: number }): Promise<void> {
  await db.updateTable('export_jobs').set({ sync_id: snapshot.syncId, event_id: snapshot.eventId })
    .where('export_id', '=', exportId).where('lease_token', '=', token).execute()
}

export interface JobOutcome {
  status: 'succeeded' | 'failed'
  finishedAt: string
  expiresAt: string
  rowsWritten: number
  files?: string
  error?: { code: string, message: string }
}

/** Ends a job if `token` still holds it; false when the lease was lost or the job was cancelled meanwhile. */
export async function finishExportJob (db: Db, exportId: string, token: string, outcome: JobOutcome): Promise<boolean> {
  const updated = await db.updateTable('export_jobs')
    .set({
      status: outcome.status,
      finished_at: outcome.finishedAt,
      expires_at: outcome.expiresAt,
      rows_written: outcome.rowsWritten,
      ...(outcome.status === 'succeeded' ? { rows_estimate: outcome.rowsWritten } : {}),
      files: outcome.files ?? null,
      error_code: outcome.error?.code ?? null,
      error_message: outcome.error?.message ?? null,
      lease_token: null,
      lease_until_ms: null,
    })
    .where('export_id', '=', exportId).where('lease_token', '=', token).where('status', '=', 'running')
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) > 0
}

/** Gives a running job back queued (its instance is stopping), if `token` still holds it. */
export async function releaseExportJob (db: Db, exportId: string, token: string): Promise<void> {
  await db.updateTable('export_jobs').set({ status: 'queued', lease_token: null, lease_until_ms: null, rows_written: 0 })
    .where('export_id', '=', exportId).where('lease_token', '=', token).where('status', '=', 'running')
    .execute()
}

/** Cancels a queued or running job (a running one's worker sees it at its next lease renewal). */
export async function cancelExportJob (db: Db, userId: string, exportId: string, at: string, expiresAt: string): Promise<ExportJobRow | undefined> {
  return await db.updateTable('export_jobs')
    .set({ status: 'cancelled', finished_at: at, expires_at: expiresAt, lease_token: null, lease_until_ms: null })
    .where('export_id', '=', exportId).where('user_id', '=', userId)
    .where('status', 'in', ['queued', 'running'])
    .returningAll()
    .executeTakeFirst()
}

export async function deleteExportJob (db: Db, userId: string, exportId: string): Promise<boolean> {
  const deleted = await db.deleteFrom('export_jobs').where('export_id', '=', exportId).where('user_id', '=', userId)
    .where('status', 'not in', ['queued', 'running']).executeTakeFirst()
  return Number(deleted.numDeletedRows) > 0
}

/** Finished jobs whose files are past their time and not yet removed, oldest first. */
export async function findExpiredExportJobs (db: Db, now: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('export_jobs').select('export_id')
    .where('status', 'in', ['succeeded', 'failed', 'cancelled']).where('expired', '=', 0).where('expires_at', '<=', now)
    .orderBy('expires_at').limit(limit).execute()
  return rows.map((row) => row.export_id)
}

export async function markExportExpired (db: Db, exportId: string): Promise<void> {
  await db.updateTable('export_jobs').set({ expired: 1, files: null }).where('export_id', '=', exportId).execute()
}

/** Jobs queued or running, by status (for /metrics and the tests' waits). */
export async function countActiveExportJobs (db: Db): Promise<{ queued: number, running: number }> {
  const rows = await db.selectFrom('export_jobs').select((eb) => ['status', eb.fn.countAll<number | string>().as('jobs')])
    .where('status', 'in', ['queued', 'running']).groupBy('status').execute()
  const count = (status: string): number => Number(rows.find((row) => row.status === status)?.jobs ?? 0)
  return { queued: count('queued'), running: count('running') }
}
