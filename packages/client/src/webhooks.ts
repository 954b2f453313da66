import { createHmac, timingSafeEqual } from 'node:crypto'
import type { components } from './generated/openapi.js'

/**
 * Verifying a webhook delivery (docs/webhooks.md "Verifying a delivery"): the Standard Webhooks
 * scheme. The key is the base64 after `whsec_`; the signed content is
 * `${webhook-id}.${webhook-timestamp}.${raw body}`; `webhook-signature` lists `v1,<base64>`
 * signatures separated by spaces (two for 24 hours after a secret rotation), any of which may
 * match. Every signature is compared, each in constant time, and the timestamp must lie within
 * the tolerance of this machine's clock, so a captured delivery cannot be replayed later.
 */

/** What a delivery's body holds: a change-feed event, or webhook.test. */
export type WebhookEvent = components['schemas']['WebhookEvent']

/** Why a delivery was refused. */
export type WebhookVerificationReason = 'missing_headers' | 'bad_secret' | 'timestamp_out_of_tolerance' | 'no_matching_signature' | 'body_not_json'

export class WebhookVerificationError extends Error {
  constructor (message: string, readonly reason: WebhookVerificationReason) {
    super(message)
    this.name = 'WebhookVerificationError'
  }
}

export interface VerifyWebhookOptions {
  /** Largest accepted gap between webhook-timestamp and now, either way (default 300 s). */
  toleranceSeconds?: number
  /** Now, in Unix seconds (default: this machine's clock). */
  nowSeconds?: number
}

/** Headers as Node gives them (lower-case names) or a fetch `Headers`. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | { get: (name: string) => string | null }

function header (headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get: (name: string) => string | null }).get(name) ?? undefined
  const record = headers as Record<string, string | string[] | undefined>
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return Array.isArray(value) ? value[0] : value
}

/**
 * Checks a delivery and returns its event; throws WebhookVerificationError when it is not one
 * we sent within the tolerance. Pass the body exactly as received (a string, Buffer or bytes),
 * before any JSON parsing: re-serialised JSON would not match the signature.
 */
export function verifyWebhook (secret: string, headers: WebhookHeaders, rawBody: string | Uint8Array, options: VerifyWebhookOptions = {}): WebhookEvent {
  const tolerance = options.toleranceSeconds ?? 300
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError('webhook-id, webhook-timestamp and webhook-signature are required', 'missing_headers')
  }
  if (!secret.startsWith('whsec_')) throw new WebhookVerificationError('the secret must start with whsec_', 'bad_secret')
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  if (key.length === 0) throw new WebhookVerificationError('the secret holds no key', 'bad_secret')

  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000)
  if (!/^\d{1,15}$/.test(timestamp) || Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s away from now`, 'timestamp_out_of_tolerance')
  }

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength)
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest()
  let matched = false
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',')
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue
    const presented = Buffer.from(entry.slice(comma + 1), 'base64')
    // Every signature is compared, and each comparison takes the same time whatever it finds.
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) matched = true
  }
  if (!matched) throw new WebhookVerificationError('no signature matches this secret', 'no_matching_signature')
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent
  } catch {
    throw new WebhookVerificationError('the body is not JSON', 'body_not_json')
  }
}
