import { Type, type Static } from '@sinclair/typebox'
import { DELIVERY_STATUSES, MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH, MAX_WEBHOOKS_PER_PARTNER, SUBSCRIBABLE_EVENT_TYPES } from '../../domain/webhooks/webhooks.js'
import { component } from './components.js'
import { CursorParam, StringEnum } from './params.schemas.js'

/** The webhook routes' requests and answers (docs/webhooks.md; docs/api-reference.md "Webhooks"). */

const EventTypes = Type.Array(StringEnum(SUBSCRIBABLE_EVENT_TYPES, { title: 'event type', description: `use ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}` }), {
  minItems: 1,
  uniqueItems: true,
  description: 'Event types to receive: the change feed\'s, and export.completed (webhook-only: one of your exports succeeded). Omitted: the change feed\'s types. webhook.test is sent on request whatever this says',
  examples: [['analytics.updated', 'posts.updated']],
})
const Url = Type.String({ minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'Where deliveries are POSTed: https:// only, a host with public addresses only', examples: ['https://etl.example.com/hooks/partner-analytics'] })
const Description = Type.Union([Type.String({ maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH }), Type.Null()], { description: 'Free text for your own use; blank or null clears it' })

export const CreateWebhookBody = Type.Object({
  url: Url,
  events: Type.Optional(EventTypes),
  description: Type.Optional(Description),
}, { additionalProperties: false })
export type CreateWebhookBody = Static<typeof CreateWebhookBody>

export const UpdateWebhookBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(EventTypes),
  description: Type.Optional(Description),
  status: Type.Optional(StringEnum(['enabled', 'disabled'] as const, { description: 'disabled: nothing is sent (pending deliveries wait); enabled: deliveries resume' })),
}, { additionalProperties: false })
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>

export const WebhookParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'The webhook\'s id, `wh_…`' }),
})

export const DeliveryParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'The webhook\'s id, `wh_…`' }),
  delivery_id: Type.String({ maxLength: 64, description: 'The delivery\'s id, `dlv_…`' }),
})

const webhookProperties = {
  id: Type.String({ description: '`wh_` + 24 characters' }),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String(), { description: 'Subscribed event types, in the documented order (the change feed\'s, then export.completed)' }),
  status: StringEnum(['enabled', 'disabled'] as const),
  disabled_by: Type.Union([StringEnum(['partner', 'operator', 'failing'] as const), Type.Null()], {
    description: 'Who disabled it: you, the operator (only the operator can enable it again), or `failing` (every attempt failed for 3 days; enable it once fixed); null while enabled',
  }),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is disabled, in words; null while enabled' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'After a rotation: until when the previous secret still signs beside the new one; null otherwise',
  }),
  pending_deliveries: Type.Integer({ minimum: 0, description: 'Deliveries not yet finished: due, under way or waiting for a retry (the backlog)' }),
}

export const Webhook = component('Webhook', Type.Object(webhookProperties))
export type Webhook = Static<typeof Webhook>

export const WebhookWithSecret = component('WebhookWithSecret', Type.Object({
  ...webhookProperties,
  secret: Type.String({ description: 'The signing secret, `whsec_` + base64: shown only in this answer; keep it safe' }),
}))
export type WebhookWithSecret = Static<typeof WebhookWithSecret>

export const WebhookList = component('WebhookList', Type.Object({
  data: Type.Array(Webhook, { maxItems: MAX_WEBHOOKS_PER_PARTNER, description: `Your webhooks, oldest first (at most ${MAX_WEBHOOKS_PER_PARTNER})` }),
}))
export type WebhookList = Static<typeof WebhookList>

export const DeliveryAttempt = component('DeliveryAttempt', Type.Object({
  attempted_at: Type.String({ format: 'date-time' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  http_status: Type.Union([Type.Integer(), Type.Null()], { description: 'The status your endpoint answered; null when no answer came' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed (a status other than 2xx, a timeout, a refused connection, a refused target…); null on success' }),
  response_body_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'The first bytes (at most 256) of your endpoint\'s answer' }),
}))

export const Delivery = component('Delivery', Type.Object({
  id: Type.String({ description: '`dlv_` + the event\'s number: one delivery per webhook and event' }),
  event_id: Type.String({ description: 'The event\'s id, sent as the webhook-id header' }),
  event_type: Type.String(),
  status: StringEnum(DELIVERY_STATUSES, { description: 'pending: due, under way or waiting for a retry; succeeded: a 2xx came back; failed: every attempt failed; skipped: not sent (see skip_reason)' }),
  skip_reason: Type.Union([StringEnum(['brand_not_visible', 'event_expired'] as const), Type.Null()], {
    description: 'brand_not_visible: you no longer see the event\'s brand; event_expired: the event left the retention before it could be sent',
  }),
  attempt_count: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ format: 'date-time' }),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the next attempt is due (pending only); in the past while one is under way' }),
  attempts: Type.Array(DeliveryAttempt, { description: 'The newest 20 attempts, newest first' }),
}))
export type Delivery = Static<typeof Delivery>

export const DELIVERIES_DEFAULT_LIMIT = 20
export const DELIVERIES_MAX_LIMIT = 100

export const DeliveriesQuery = Type.Object({
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { title: 'delivery status', description: 'Only deliveries in this state' })),
  limit: Type.Integer({ minimum: 1, maximum: DELIVERIES_MAX_LIMIT, default: DELIVERIES_DEFAULT_LIMIT, description: `Deliveries per page, 1 to ${DELIVERIES_MAX_LIMIT}` }),
  cursor: Type.Optional(CursorParam('next_cursor of the previous page (bound to the webhook and the status filter)')),
})
export type DeliveriesQuery = Static<typeof DeliveriesQuery>

export const DeliveryPage = component('DeliveryPage', Type.Object({
  data: Type.Array(Delivery, { description: 'Newest first' }),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
}))
export type DeliveryPage = Static<typeof DeliveryPage>

export const NoContent = Type.Null({ description: 'No content' })
