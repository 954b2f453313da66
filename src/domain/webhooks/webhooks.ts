import { CHANGE_EVENT_TYPES, type ChangeEventType } from '../changes.js'

/**
 * Webhook endpoints and their deliveries (docs/webhooks.md): what a partner registers, what the
 * service sends, and the words the delivery log uses.
 */

/**
 * Events sent to webhooks only, never in the change feed: they concern the partner itself, not a
 * brand. export.completed: one of the partner's export jobs succeeded (docs/exports.md).
 */
export const WEBHOOK_ONLY_EVENT_TYPES = ['export.completed'] as const
export type WebhookOnlyEventType = (typeof WEBHOOK_ONLY_EVENT_TYPES)[number]
export const EXPORT_COMPLETED_EVENT_TYPE: WebhookOnlyEventType = 'export.completed'

export type SubscribableEventType = ChangeEventType | WebhookOnlyEventType

/** Types an endpoint may subscribe to, in the documented order: the change feed's, then the webhook-only ones. */
export const SUBSCRIBABLE_EVENT_TYPES: readonly SubscribableEventType[] = [...CHANGE_EVENT_TYPES, ...WEBHOOK_ONLY_EVENT_TYPES]

/** What an endpoint registered without `events` takes: every type of the change feed (webhook-only types are asked for by name). */
export const DEFAULT_EVENT_TYPES: readonly SubscribableEventType[] = CHANGE_EVENT_TYPES

/** Sent on demand by POST /webhooks/{id}/test, whatever the endpoint subscribed to; never in the feed. */
export const TEST_EVENT_TYPE = 'webhook.test'

/** Endpoints one partner may hold (a further POST /webhooks is 409 CONFLICT). */
export const MAX_WEBHOOKS_PER_PARTNER = 10

/** The longest URL an endpoint may have. */
export const MAX_WEBHOOK_URL_LENGTH = 2048
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500

/** A 2xx within this time is a success; anything else, or nothing, a failure. */
export const ATTEMPT_TIMEOUT_MS = 10_000

/** Bytes of a response body read at most (the rest is never read); of those, bytes kept in the log. */
export const RESPONSE_READ_LIMIT = 1024
export const RESPONSE_EXCERPT_LIMIT = 256

/** How long the previous secret keeps signing beside the new one after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000

/** An endpoint whose every attempt failed for this long is disabled (reason `failing`). */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3_600_000

export type WebhookStatus = 'enabled' | 'disabled'

/** Who or what disabled an endpoint (null while enabled). */
export type DisabledBy = 'partner' | 'operator' | 'failing'

/**
 * pending: an attempt is due, running or scheduled; succeeded: a 2xx came back; failed: every
 * attempt of the schedule failed; skipped: not sent, and never will be unless redelivered (the
 * partner no longer sees the event's brand, or the event is no longer kept).
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'skipped'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** Why a delivery was skipped. */
export type SkipReason = 'brand_not_visible' | 'event_expired'

export interface WebhookEndpoint {
  id: string
  userId: string
  url: string
  description: string | null
  events: SubscribableEventType[]
  status: WebhookStatus
  disabledBy: DisabledBy | null
  disabledReason: string | null
  createdAt: string
  updatedAt: string
  /** Until when the previous secret still signs (null when it does not). */
  previousSecretExpiresAt: string | null
  /** Deliveries not finished yet (the endpoint's backlog). */
  pendingDeliveries: number
}

export interface DeliveryAttempt {
  attemptedAt: string
  durationMs: number
  /** The response's status; null when none came (then `error` says why). */
  httpStatus: number | null
  error: string | null
  /** The first bytes of the response body (at most RESPONSE_EXCERPT_LIMIT), as text. */
  responseExcerpt: string | null
}

export interface Delivery {
  eventNumber: number
  eventType: string
  status: DeliveryStatus
  skipReason: SkipReason | null
  attemptCount: number
  createdAt: string
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string | null
  /** Newest first, at most DELIVERY_LOG_ATTEMPTS. */
  attempts: DeliveryAttempt[]
}

/** Attempts shown per delivery in the log (the count says how many there were). */
export const DELIVERY_LOG_ATTEMPTS = 20

/** The public id of an endpoint: `wh_` + 24 base62 characters. */
export const WEBHOOK_ID_PATTERN = '^wh_[0-9A-Za-z]{24}$'

/** A delivery's public id: `dlv_` + the number of its event (one delivery per endpoint and event). */
export function deliveryIdOf (eventNumber: number): string {
  return `dlv_${eventNumber}`
}
export const DELIVERY_ID_PATTERN = '^dlv_[1-9][0-9]{0,15}$'
