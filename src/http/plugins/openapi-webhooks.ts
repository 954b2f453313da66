import { WebhookEvent } from '../schemas/changes.schemas.js'

/**
 * The document's `webhooks` section (OpenAPI 3.1): what the service POSTs to a partner's endpoint
 * (docs/webhooks.md), so the event payloads are described as named schemas beside the routes.
 */
export function webhooksSection (share: (schema: unknown) => unknown): Record<string, unknown> {
  const header = (name: string, description: string, example: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example })
  return {
    changeEvent: {
      post: {
        operationId: 'receiveChangeEvent',
        tags: ['webhooks'],
        summary: 'An event POSTed to your endpoint, signed (Standard Webhooks)',
        description: 'The same JSON as the event in GET /changes (or webhook.test). Verify the signature over the raw body before parsing it, answer 2xx within 10 seconds, and dedupe by webhook-id: delivery is at least once.',
        security: [],
        parameters: [
          header('webhook-id', 'The event id: the same for every attempt and redelivery of this event (dedupe by it)', 'evt_1042'),
          header('webhook-timestamp', 'Unix seconds when this attempt was signed; refuse it when more than 5 minutes away from your clock', '1795687200'),
          header('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{raw body}`; two during the 24 hours after a secret rotation: accept when any matches', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
        ],
        requestBody: { required: true, content: { 'application/json': { schema: share(WebhookEvent) } } },
        responses: {
          '2XX': { description: 'Received: the delivery succeeded' },
          '4XX': { description: 'Refused: the delivery is retried on the schedule (so are 5xx answers, redirects, timeouts and refused connections)' },
        },
      },
    },
  }
}
