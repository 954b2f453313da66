import type { CursorCodec } from './codec.js'

/**
 * The delivery log's cursor (docs/webhooks.md "The delivery log"): the event number the next page
 * starts below, bound to the webhook and the status filter, so it cannot be replayed on another
 * webhook or with another filter.
 */

function bindingOf (webhookId: string, status: string | undefined): unknown {
  return { webhook_id: webhookId, status: status ?? null }
}

export function encodeDeliveriesCursor (codec: CursorCodec, webhookId: string, status: string | undefined, beforeEventNumber: number): string {
  return codec.encode({ before: beforeEventNumber }, bindingOf(webhookId, status))
}

export function decodeDeliveriesCursor (codec: CursorCodec, webhookId: string, status: string | undefined, cursor: string): number | undefined {
  const payload = codec.decode(cursor, bindingOf(webhookId, status))
  if (payload === null || typeof payload !== 'object') return undefined
  const before = (payload as { before?: unknown }).before
  return typeof before === 'number' && Number.isSafeInteger(before) && before > 0 ? before : undefined
}
