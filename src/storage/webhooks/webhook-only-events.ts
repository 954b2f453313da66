import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.js'

/**
 * The outbox's writer for events that are sent to webhooks only (docs/webhooks.md "Events and
 * payloads": export.completed), never recorded in the change feed: each enabled endpoint of the one
 * partner the event concerns, subscribed to its type, gets one pending delivery, due now, with the
 * body kept beside it (as a webhook.test delivery's is: there is no change_events row to render
 * it from). Called in the transaction that makes the event true, so the deliveries exist exactly
 * when it does.
 */

type Db = Kysely<Database> | Transaction<Database>

export interface WebhookOnlyEvent {
  type: string
  /** The event's number, from the change feed's clock (webhook-id values never repeat). */
  eventId: number
  /** The body as sent. */
  payload: string
  createdAt: string
  dueMs: number
}

/** The partner's enabled endpoints subscribed to `type` (none: nothing to queue, no number to take). */
export async function subscribedEndpointsOf (db: Db, userId: string, type: string): Promise<string[]> {
  const rows = await db.selectFrom('webhook_endpoints as w')
    .innerJoin('webhook_subscriptions as s', 's.endpoint_id', 'w.endpoint_id')
    .select('w.endpoint_id')
    .where('w.user_id', '=', userId)
    .where('w.status', '=', 'enabled')
    .where('s.type', '=', type)
    .orderBy('w.endpoint_id')
    .execute()
  return rows.map((row) => row.endpoint_id)
}

/** One pending delivery of the event per endpoint given. */
export async function insertWebhookOnlyDeliveries (db: Db, endpointIds: readonly string[], event: WebhookOnlyEvent): Promise<void> {
  if (endpointIds.length === 0) return
  await db.insertInto('webhook_deliveries').values(endpointIds.map((endpointId) => ({
    endpoint_id: endpointId,
    event_id: event.eventId,
    event_type: event.type,
    sync_id: null,
    test_payload: event.payload,
    status: 'pending' as const,
    skip_reason: null,
    attempt_count: 0,
    round_attempts: 0,
    next_attempt_ms: event.dueMs,
    lease_until_ms: null,
    lease_token: null,
    created_at: event.createdAt,
  }))).execute()
}
