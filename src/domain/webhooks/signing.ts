import { createHmac } from 'node:crypto'

/**
 * Standard Webhooks signatures (docs/webhooks.md "Signing"): the secret is `whsec_` + base64 of
 * the key bytes; the signed content is `${webhook-id}.${webhook-timestamp}.${body}`; the header
 * lists `v1,<base64 HMAC-SHA256>` for every secret that signs, separated by spaces (two during
 * the 24 hours after a rotation).
 */

export const SECRET_PREFIX = 'whsec_'

/** The HMAC key of a `whsec_…` secret. */
export function secretKey (secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new RangeError('a webhook secret starts with whsec_')
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
}

/** One `v1,…` signature of a message with one secret. */
export function signatureOf (secret: string, webhookId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${webhookId}.${timestamp}.${body}`, 'utf8').digest('base64')
  return `v1,${mac}`
}

/** The three headers of a delivery, signed with every secret given (newest first). */
export function signedHeaders (secrets: readonly string[], webhookId: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signatureOf(secret, webhookId, timestamp, body)).join(' '),
  }
}
