import { renderChangeEvent } from '../../domain/changes.js'
import { formatUtcSeconds } from '../../domain/dates.js'
import { AppError } from '../../domain/errors.js'
import { DELIVERY_LOG_ATTEMPTS, TEST_EVENT_TYPE, type Delivery, type DeliveryStatus } from '../../domain/webhooks/webhooks.js'
import { takeChangeNumbers } from '../../storage/changes/change-log.repository.js'
import type { Store } from '../../storage/db.js'
import { findDelivery, insertTestDelivery, readAttempts, readDeliveryPage, requeueDelivery } from '../../storage/webhooks/delivery-log.repository.js'
import type { EndpointsService } from './endpoints.service.js'
import { deliveryView } from './views.js'

/**
 * A partner's side of deliveries (docs/webhooks.md "The delivery log"): the log, newest first;
 * redelivery; and the webhook.test event.
 */

export interface DeliveriesDeps {
  store: Store
  endpoints: EndpointsService
  /** The wall clock of the times shown (queue times are always the real clock's, as the worker's). */
  now: () => number
  /** Tells the delivery worker a delivery is due now. */
  wake: () => void
}

export interface DeliveryPage {
  deliveries: Delivery[]
  /** The event number the next page starts below; undefined on the last page. */
  nextBeforeEventNumber: number | undefined
}

export function createDeliveriesService (deps: DeliveriesDeps) {
  const db = deps.store.db

  async function withAttempts (endpointId: string, eventNumber: number): Promise<Delivery> {
    const row = await findDelivery(db, endpointId, eventNumber)
    if (row === undefined) throw new AppError('NOT_FOUND', `No delivery dlv_${eventNumber} of webhook ${endpointId}`)
    const attempts = await readAttempts(db, endpointId, [eventNumber], DELIVERY_LOG_ATTEMPTS)
    return deliveryView(row, attempts.get(eventNumber) ?? [])
  }

  function requireEnabled (endpoint: { endpoint_id: string, status: string }): void {
    if (endpoint.status !== 'enabled') throw new AppError('CONFLICT', `Webhook ${endpoint.endpoint_id} is disabled; enable it first (PATCH with {"status": "enabled"})`)
  }

  return {
    async page (userId: string, endpointId: string, query: { status?: DeliveryStatus, beforeEventNumber?: number, limit: number }): Promise<DeliveryPage> {
      await deps.endpoints.requireOwn(userId, endpointId)
      const rows = await readDeliveryPage(db, endpointId, { status: query.status, beforeEventId: query.beforeEventNumber, limit: query.limit })
      const shown = rows.slice(0, query.limit)
      const attempts = await readAttempts(db, endpointId, shown.map((row) => Number(row.event_id)), DELIVERY_LOG_ATTEMPTS)
      const last = shown.at(-1)
      return {
        deliveries: shown.map((row) => deliveryView(row, attempts.get(Number(row.event_id)) ?? [])),
        nextBeforeEventNumber: rows.length > query.limit && last !== undefined ? Number(last.event_id) : undefined,
      }
    },

    /** Queues the delivery again, due now, with the retry schedule from its start. */
    async redeliver (userId: string, endpointId: string, eventNumber: number): Promise<Delivery> {
      requireEnabled(await deps.endpoints.requireOwn(userId, endpointId))
      await withAttempts(endpointId, eventNumber)
      if (!await requeueDelivery(db, endpointId, eventNumber, Date.now())) {
        throw new AppError('CONFLICT', `Delivery dlv_${eventNumber} is being attempted right now; try again once the attempt is over`)
      }
      // The answer shows the delivery as queued: read before the worker is woken, which may
      // otherwise have attempted it already (a status the answer would show by chance).
      const queued = await withAttempts(endpointId, eventNumber)
      deps.wake()
      return queued
    },

    /** Queues a webhook.test event for the endpoint, due now (whatever it subscribed to). */
    async sendTest (userId: string, endpointId: string): Promise<Delivery> {
      requireEnabled(await deps.endpoints.requireOwn(userId, endpointId))
      const createdAt = formatUtcSeconds(deps.now())
      const eventNumber = await db.transaction().execute(async (trx) => {
        // A number of the change feed's clock, so webhook-id values never repeat across event kinds.
        const { firstEventId } = await takeChangeNumbers(trx, { sync: false, eventCount: 1 })
        const payload = renderChangeEvent({ eventNumber: firstEventId, type: TEST_EVENT_TYPE, createdAt, syncId: null, data: JSON.stringify({ webhook_id: endpointId }) })
        await insertTestDelivery(trx, { endpointId, eventId: firstEventId, payload, createdAt, dueMs: Date.now() })
        return firstEventId
      })
      const queued = await withAttempts(endpointId, eventNumber)
      deps.wake()
      return queued
    },
  }
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>
