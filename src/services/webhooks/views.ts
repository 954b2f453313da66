import { formatUtcSeconds } from '../../domain/dates.js'
import { SUBSCRIBABLE_EVENT_TYPES, type Delivery, type SubscribableEventType, type DeliveryStatus, type SkipReason, type WebhookEndpoint } from '../../domain/webhooks/webhooks.js'
import type { AttemptRow, DeliveryRow } from '../../storage/webhooks/delivery-log.repository.js'
import type { EndpointRow } from '../../storage/webhooks/endpoints.repository.js'

/** Rows of the webhook tables as the domain's endpoints and deliveries. */

const time = (value: string | null): string | null => value === null ? null : formatUtcSeconds(value)

/** Subscribed types in the documented order (the feed's, then the webhook-only ones). */
export function orderedTypes (types: readonly string[]): SubscribableEventType[] {
  return SUBSCRIBABLE_EVENT_TYPES.filter((type) => types.includes(type))
}

export function endpointView (row: EndpointRow, types: readonly string[], pending: number, nowMs: number): WebhookEndpoint {
  const previousExpires = time(row.previous_secret_expires_at)
  return {
    id: row.endpoint_id,
    userId: row.user_id,
    url: row.url,
    description: row.description,
    events: orderedTypes(types),
    status: row.status,
    disabledBy: row.disabled_by,
    disabledReason: row.disabled_reason,
    createdAt: formatUtcSeconds(row.created_at),
    updatedAt: formatUtcSeconds(row.updated_at),
    previousSecretExpiresAt: previousExpires !== null && Date.parse(previousExpires) > nowMs ? previousExpires : null,
    pendingDeliveries: pending,
  }
}

export function deliveryView (row: DeliveryRow, attempts: readonly AttemptRow[]): Delivery {
  return {
    eventNumber: Number(row.event_id),
    eventType: row.event_type,
    status: row.status as DeliveryStatus,
    skipReason: row.skip_reason as SkipReason | null,
    attemptCount: Number(row.attempt_count),
    createdAt: formatUtcSeconds(row.created_at),
    // Due (in the past) while an attempt is under way or waiting for a free slot.
    nextAttemptAt: row.status === 'pending' && row.next_attempt_ms !== null ? formatUtcSeconds(Number(row.next_attempt_ms)) : null,
    attempts: attempts.map((attempt) => ({
      attemptedAt: formatUtcSeconds(attempt.attempted_at),
      durationMs: Number(attempt.duration_ms),
      httpStatus: attempt.http_status === null ? null : Number(attempt.http_status),
      error: attempt.error,
      responseExcerpt: attempt.response_excerpt,
    })),
  }
}
