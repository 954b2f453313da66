import { eventIdOf } from '../../../domain/changes.js'
import { deliveryIdOf, type Delivery as DomainDelivery, type WebhookEndpoint } from '../../../domain/webhooks/webhooks.js'
import type { Delivery, Webhook } from '../../schemas/webhooks.schemas.js'

/** Webhooks and deliveries as the API writes them (docs/api-reference.md "Webhooks"). */

export function webhookJson (endpoint: WebhookEndpoint): Webhook {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    status: endpoint.status,
    disabled_by: endpoint.disabledBy,
    disabled_reason: endpoint.disabledReason,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt,
    pending_deliveries: endpoint.pendingDeliveries,
  }
}

export function deliveryJson (delivery: DomainDelivery): Delivery {
  return {
    id: deliveryIdOf(delivery.eventNumber),
    event_id: eventIdOf(delivery.eventNumber),
    event_type: delivery.eventType,
    status: delivery.status,
    skip_reason: delivery.skipReason,
    attempt_count: delivery.attemptCount,
    created_at: delivery.createdAt,
    next_attempt_at: delivery.nextAttemptAt,
    attempts: delivery.attempts.map((attempt) => ({
      attempted_at: attempt.attemptedAt,
      duration_ms: attempt.durationMs,
      http_status: attempt.httpStatus,
      error: attempt.error,
      response_body_excerpt: attempt.responseExcerpt,
    })),
  }
}

/** The event number of a `dlv_N` id, or undefined when it is not one. */
export function eventNumberOfDelivery (deliveryId: string): number | undefined {
  const match = /^dlv_([1-9][0-9]{0,15})$/.exec(deliveryId)
  const number = match === null ? Number.NaN : Number(match[1])
  return Number.isSafeInteger(number) ? number : undefined
}
