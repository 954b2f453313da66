import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import { formatUtcSeconds } from '../../domain/dates.js'
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable } from '../database.js'

/**
 * What the worker needs to send a delivery, and what partners read of it: the delivery log,
 * redelivery, the webhook.test delivery, and the retention.
 */

type Db = Kysely<Database> | Transaction<Database>

export interface EventForDelivery {
  eventId: number
  type: string
  createdAt: string
  syncId: number | null
  /** The data member, JSON text. */
  data: string
  /** Whether the user sees it now: its brand is granted, or (access.*) it names the user. */
  visible: boolean
}

/** The events of claimed deliveries, each judged against the user's grants as they are now. */
export async function readEventsForDelivery (db: Db, userId: string, eventIds: readonly number[]): Promise<Map<number, EventForDelivery>> {
  const events = new Map<number, EventForDelivery>()
  if (eventIds.length === 0) return events
  const rows = await db.selectFrom('change_events as e')
    .select(['e.event_id', 'e.type', 'e.created_at', 'e.sync_id', 'e.data'])
    .select((eb) => eb.case().when(eb.or([
      eb('e.user_id', '=', userId),
      eb.and([
        eb('e.user_id', 'is', null),
        eb.exists(eb.selectFrom('user_brands as ub').select(sql.lit(1).as('one')).where('ub.user_id', '=', userId).whereRef('ub.brand_id', '=', 'e.brand_id')),
      ]),
    ])).then(sql.lit(1)).else(sql.lit(0)).end().as('visible'))
    .where('e.event_id', 'in', eventIds)
    .execute()
  for (const row of rows) {
    events.set(Number(row.event_id), {
      eventId: Number(row.event_id),
      type: row.type,
      // PostgreSQL returns timestamps with milliseconds: events show them to the second, as the feed does.
      createdAt: formatUtcSeconds(row.created_at),
      syncId: row.sync_id === null ? null : Number(row.sync_id),
      data: row.data,
      visible: Number(row.visible) === 1,
    })
  }
  return events
}

export type DeliveryRow = Pick<Selectable<WebhookDeliveriesTable>, 'event_id' | 'event_type' | 'status' | 'skip_reason' | 'attempt_count' | 'next_attempt_ms' | 'lease_until_ms' | 'created_at'>
export type AttemptRow = Selectable<WebhookAttemptsTable>

const DELIVERY_COLUMNS = ['event_id', 'event_type', 'status', 'skip_reason', 'attempt_count', 'next_attempt_ms', 'lease_until_ms', 'created_at'] as const

/** One page of an endpoint's deliveries, newest first, after `beforeEventId` if given; `limit + 1` rows tell whether more follow. */
export async function readDeliveryPage (db: Db, endpointId: string, page: { status?: string, beforeEventId?: number, limit: number }): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS).where('endpoint_id', '=', endpointId)
  if (page.status !== undefined) query = query.where('status', '=', page.status as DeliveryRow['status'])
  if (page.beforeEventId !== undefined) query = query.where('event_id', '<', page.beforeEventId)
  return await query.orderBy('event_id', 'desc').limit(page.limit + 1).execute()
}

export async function findDelivery (db: Db, endpointId: string, eventId: number): Promise<DeliveryRow | undefined> {
  return await db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS).where('endpoint_id', '=', endpointId).where('event_id', '=', eventId).executeTakeFirst()
}

/** The newest `perDelivery` attempts of each delivery given, newest first. */
export async function readAttempts (db: Db, endpointId: string, eventIds: readonly number[], perDelivery: number): Promise<Map<number, AttemptRow[]>> {
  const attempts = new Map<number, AttemptRow[]>(eventIds.map((id) => [id, []]))
  if (eventIds.length === 0) return attempts
  const rows = await db.selectFrom((eb) => eb.selectFrom('webhook_attempts').selectAll()
    .select(sql<number>`row_number() over (partition by event_id order by attempt_number desc)`.as('rank'))
    .where('endpoint_id', '=', endpointId).where('event_id', 'in', eventIds)
    .as('ranked'))
    .selectAll()
    .where('rank', '<=', perDelivery)
    .orderBy('event_id').orderBy('attempt_number', 'desc')
    .execute()
  for (const { rank: _rank, ...row } of rows) attempts.get(Number(row.event_id))?.push(row)
  return attempts
}

/**
 * Queues a delivery again, due at `nowMs`, with the retry schedule from its start; refused
 * (false) while an attempt holds it (a live lease).
 */
export async function requeueDelivery (db: Db, endpointId: string, eventId: number, nowMs: number): Promise<boolean> {
  const result = await db.updateTable('webhook_deliveries')
    .set({ status: 'pending', skip_reason: null, round_attempts: 0, next_attempt_ms: nowMs })
    .where('endpoint_id', '=', endpointId).where('event_id', '=', eventId)
    .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<=', nowMs)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** A webhook.test delivery: its body is kept with it, since its event is not in the change feed. */
export async function insertTestDelivery (db: Db, delivery: { endpointId: string, eventId: number, payload: string, createdAt: string, dueMs: number }): Promise<void> {
  await db.insertInto('webhook_deliveries').values({
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: 'webhook.test',
    sync_id: null,
    test_payload: delivery.payload,
    status: 'pending',
    skip_reason: null,
    attempt_count: 0,
    round_attempts: 0,
    next_attempt_ms: delivery.dueMs,
    lease_until_ms: null,
    lease_token: null,
    created_at: delivery.createdAt,
  }).execute()
}

/** Deletes up to `batch` deliveries created before `cutoff` (their attempts go with them); returns how many. */
export async function purgeDeliveriesBefore (db: Db, cutoff: string, batch: number): Promise<number> {
  const result = await db.deleteFrom('webhook_deliveries')
    .where((eb) => eb(eb.refTuple('endpoint_id', 'event_id'), 'in', eb.selectFrom('webhook_deliveries as old')
      .select(['old.endpoint_id', 'old.event_id'])
      .where('old.created_at', '<', cutoff)
      .limit(batch)
      .$asTuple('endpoint_id', 'event_id')))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
