import type { Transaction } from 'kysely'
import { renderChangeEvent } from '../../domain/changes.js'
import { formatUtcSeconds } from '../../domain/dates.js'
import type { WebhookOnlyEventType } from '../../domain/webhooks/webhooks.js'
import { takeChangeNumbers } from '../../storage/changes/change-log.repository.js'
import type { Database } from '../../storage/database.js'
import { insertWebhookOnlyDeliveries, subscribedEndpointsOf } from '../../storage/webhooks/webhook-only-events.js'

/**
 * Queues an event that only webhooks carry (docs/webhooks.md "Events and payloads"), for the one
 * partner it concerns: rendered as the feed renders its events (`sync_id` null), numbered on the
 * feed's clock, and written to the outbox in the caller's transaction, so it is sent exactly when
 * what it announces committed. The delivery worker sends it like any other delivery (signed,
 * retried, in the delivery log). Nothing is queued, and no number taken, when no enabled
 * endpoint of the partner subscribed to the type.
 */
export async function queueWebhookOnlyEvent (trx: Transaction<Database>, event: { userId: string, type: WebhookOnlyEventType, nowMs: number, data: unknown }): Promise<number | undefined> {
  const endpointIds = await subscribedEndpointsOf(trx, event.userId, event.type)
  if (endpointIds.length === 0) return undefined
  const { firstEventId } = await takeChangeNumbers(trx, { sync: false, eventCount: 1 })
  const createdAt = formatUtcSeconds(event.nowMs)
  const payload = renderChangeEvent({ eventNumber: firstEventId, type: event.type, createdAt, syncId: null, data: JSON.stringify(event.data) })
  // Due by the real clock, as every queue time is (the worker compares it with Date.now()).
  await insertWebhookOnlyDeliveries(trx, endpointIds, { type: event.type, eventId: firstEventId, payload, createdAt, dueMs: Date.now() })
  return firstEventId
}
