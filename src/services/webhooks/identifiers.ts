import { randomBytes, randomInt } from 'node:crypto'
import { SECRET_PREFIX } from '../../domain/webhooks/signing.js'

/** Issued webhook identifiers (docs/webhooks.md): endpoint ids and signing secrets. */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** `wh_` + 24 base62 characters from the CSPRNG. */
export function generateWebhookId (): string {
  let id = 'wh_'
  for (let i = 0; i < 24; i++) id += BASE62[randomInt(62)]
  return id
}

/** `whsec_` + base64 of 32 random bytes (a 256-bit HMAC key), as Standard Webhooks writes secrets. */
export function generateWebhookSecret (): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}
