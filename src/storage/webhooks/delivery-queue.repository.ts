import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../database.js'
import type { Dialect } from '../db.js'

/**
 * The outbox as a queue (docs/webhooks.md "Delivery"; docs/storage.md "Webhooks"). A delivery is
 * due when it is pending, its `next_attempt_ms` has come and no live lease holds it. A worker
 * claims due deliveries by writing a lease (an expiry and a token of its own) in one statement:
 * PostgreSQL locks the chosen rows with FOR UPDATE SKIP LOCKED, so claimers on other instances
 * pass over them instead of waiting; SQLite runs the statement under its one write lock. Whatever
 * a worker finishes it writes only while its token still holds the lease, and a lease left behind
 * by a killed process simply expires, after which the delivery is due again: nothing is lost.
 */

type Db = Kysely<Database> | Transaction<Database>

/** `status = 'pending'` written literally, so PostgreSQL can use the partial index even under generic plans. */
const PENDING = sql.lit<'pending'>('pending')

export interface DueFilter {
  nowMs: number
  /** Deliveries of events of a later sync are held (a replica has not seen them yet); undefined: no limit. */
  maxSyncId: number | undefined
}

function due (filter: DueFilter) {
  return (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) => eb.and([
    eb('webhook_deliveries.status', '=', PENDING),
    eb('webhook_deliveries.next_attempt_ms', '<=', filter.nowMs),
    eb.or([eb('webhook_deliveries.lease_until_ms', 'is', null), eb('webhook_deliveries.lease_until_ms', '<=', filter.nowMs)]),
    ...(filter.maxSyncId === undefined ? [] : [eb.or([eb('webhook_deliveries.sync_id', 'is', null), eb('webhook_deliveries.sync_id', '<=', filter.maxSyncId)])]),
  ])
}

/**
 * Enabled endpoints of enabled partners (with their owner) with at least one due delivery, in random order (so that
 * when a worker has fewer free slots than endpoints have work, none is always last). One index
 * probe per endpoint: the cost follows the number of endpoints, never the size of a backlog.
 */
export async function endpointsWithDueDeliveries (db: Db, filter: DueFilter, limit: number): Promise<Array<{ endpointId: string, userId: string }>> {
  const rows = await db.selectFrom('webhook_endpoints as w')
    .innerJoin('users as u', 'u.user_id', 'w.user_id')
    .select(['w.endpoint_id', 'w.user_id'])
    .where('w.status', '=', sql.lit('enabled'))
    .where('u.disabled_at', 'is', null)
    .where((eb) => eb.exists(eb.selectFrom('webhook_deliveries').select(sql.lit(1).as('one'))
      .whereRef('webhook_deliveries.endpoint_id', '=', 'w.endpoint_id')
      .where(due(filter))))
    .orderBy(sql`random()`)
    .limit(limit)
    .execute()
  return rows.map((row) => ({ endpointId: row.endpoint_id, userId: row.user_id }))
}

export interface ClaimedDelivery {
  eventId: number
  eventType: string
  testPayload: string | null
  roundAttempts: number
}

/** Leases up to `count` of the endpoint's due deliveries, oldest first, to `token` until `leaseUntilMs`. */
export async function claimDeliveries (db: Db, dialect: Dialect, endpointId: string, count: number, filter: DueFilter, lease: { token: string, untilMs: number }): Promise<ClaimedDelivery[]> {
  const rows = await db.updateTable('webhook_deliveries')
    .set({ lease_until_ms: lease.untilMs, lease_token: lease.token })
    .where('endpoint_id', '=', endpointId)
    .where('event_id', 'in', (eb) => eb.selectFrom('webhook_deliveries')
      .select('event_id')
      .where('endpoint_id', '=', endpointId)
      .where(due(filter))
      .orderBy('next_attempt_ms').orderBy('event_id')
      .limit(count)
      .$if(dialect === 'postgres', (query) => query.forUpdate().skipLocked()))
    .returning(['event_id', 'event_type', 'test_payload', 'round_attempts'])
    .execute()
  return rows
    .map((row) => ({ eventId: Number(row.event_id), eventType: row.event_type, testPayload: row.test_payload, roundAttempts: Number(row.round_attempts) }))
    .sort((a, b) => a.eventId - b.eventId)
}

/** Gives claimed deliveries back untouched (the worker is stopping, or cannot attempt them in time). */
export async function releaseDeliveries (db: Db, endpointId: string, eventIds: readonly number[], token: string): Promise<void> {
  if (eventIds.length === 0) return
  await db.updateTable('webhook_deliveries')
    .set({ lease_until_ms: null, lease_token: null })
    .where('endpoint_id', '=', endpointId).where('event_id', 'in', eventIds).where('lease_token', '=', token)
    .execute()
}

/** Gives a claimed delivery back, due at `dueMs` rather than at once, without counting an attempt. */
export async function postponeDelivery (db: Db, endpointId: string, eventId: number, token: string, dueMs: number): Promise<void> {
  await db.updateTable('webhook_deliveries')
    .set({ next_attempt_ms: dueMs, lease_until_ms: null, lease_token: null })
    .where('endpoint_id', '=', endpointId).where('event_id', '=', eventId).where('lease_token', '=', token)
    .execute()
}

/** What an attempt found, and where it leaves the delivery. */
export interface AttemptRecord {
  attemptedAt: string
  durationMs: number
  httpStatus: number | null
  error: string | null
  responseExcerpt: string | null
  /** pending with a next attempt, succeeded, or failed for good. */
  next: { status: 'pending', nextAttemptMs: number } | { status: 'succeeded' | 'failed' }
}

/**
 * Writes an attempt and the delivery's new state, if `token` still holds the lease; returns the
 * attempt's number, or undefined when the lease was lost (then nothing is written).
 */
export async function recordAttempt (db: Db, endpointId: string, eventId: number, token: string, record: AttemptRecord): Promise<number | undefined> {
  const updated = await db.updateTable('webhook_deliveries')
    .set((eb) => ({
      status: record.next.status,
      attempt_count: eb('attempt_count', '+', 1),
      round_attempts: eb('round_attempts', '+', 1),
      next_attempt_ms: record.next.status === 'pending' ? record.next.nextAttemptMs : null,
      lease_until_ms: null,
      lease_token: null,
    }))
    .where('endpoint_id', '=', endpointId).where('event_id', '=', eventId).where('lease_token', '=', token)
    .returning('attempt_count')
    .executeTakeFirst()
  if (updated === undefined) return undefined
  const attemptNumber = Number(updated.attempt_count)
  await db.insertInto('webhook_attempts').values({
    endpoint_id: endpointId,
    event_id: eventId,
    attempt_number: attemptNumber,
    attempted_at: record.attemptedAt,
    duration_ms: record.durationMs,
    http_status: record.httpStatus,
    error: record.error,
    response_excerpt: record.responseExcerpt,
  }).execute()
  return attemptNumber
}

/** Marks a claimed delivery skipped (not sent, with why), if `token` still holds it. */
export async function skipDelivery (db: Db, endpointId: string, eventId: number, token: string, reason: string): Promise<void> {
  await db.updateTable('webhook_deliveries')
    .set({ status: 'skipped', skip_reason: reason, next_attempt_ms: null, lease_until_ms: null, lease_token: null })
    .where('endpoint_id', '=', endpointId).where('event_id', '=', eventId).where('lease_token', '=', token)
    .execute()
}

/** The endpoint answered: it is no longer failing. */
export async function clearFailing (db: Db, endpointId: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('endpoint_id', '=', endpointId).where('failing_since', 'is not', null).execute()
}

/**
 * An attempt failed: the endpoint is failing since now unless it already was; once it has been
 * failing since `disableBefore` or earlier it is disabled with `reason`. Returns true when this
 * call disabled it.
 */
export async function noteFailure (db: Db, endpointId: string, at: string, disable: { before: string, reason: string }): Promise<boolean> {
  await db.updateTable('webhook_endpoints').set({ failing_since: at }).where('endpoint_id', '=', endpointId).where('failing_since', 'is', null).execute()
  const disabled = await db.updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_by: 'failing', disabled_reason: disable.reason, updated_at: at })
    .where('endpoint_id', '=', endpointId).where('status', '=', 'enabled').where('failing_since', '<=', disable.before)
    .executeTakeFirst()
  return Number(disabled.numUpdatedRows) > 0
}

/**
 * The whole outbox's backlog: deliveries pending (due, under way or waiting for a retry) and when
 * the oldest of them was queued. Reads only pending rows (the partial index holds exactly those),
 * so its cost follows the backlog, not the delivery log.
 */
export async function readBacklog (db: Db): Promise<{ pending: number, oldestCreatedAt: string | null }> {
  const row = await db.selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number | string>().as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', PENDING)
    .executeTakeFirst()
  return { pending: Number(row?.pending ?? 0), oldestCreatedAt: row?.oldest === null || row?.oldest === undefined ? null : String(row.oldest) }
}
