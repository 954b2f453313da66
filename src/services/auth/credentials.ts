import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'

/**
 * Issued credential formats (docs/api-reference.md "Authentication"): client key `pak_` + 24 base62 characters, secret
 * `pas_` + 43 base62 characters (43 × log2(62) ≈ 256 bits). Secrets are stored only as a digest.
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

export const CLIENT_KEY_PATTERN = /^pak_[0-9A-Za-z]{24}$/
export const SECRET_KEY_PATTERN = /^pas_[0-9A-Za-z]{43}$/

/** Uniform base62 characters from the CSPRNG (randomInt avoids modulo bias). */
function randomBase62 (length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)]
  return out
}

export function generateClientKey (): string {
  return 'pak_' + randomBase62(24)
}

export function generateSecretKey (): string {
  return 'pas_' + randomBase62(43)
}

/** Opaque user id, the `user_id` login returns. */
export function generateUserId (): string {
  return 'usr_' + randomBytes(12).toString('hex')
}

/**
 * SHA-256 of the secret, hex. A fast hash is right here: the secret carries 256 random bits,
 * so there is nothing for a slow password hash to protect against.
 */
export function digestSecret (secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}

/** Constant-time check of a presented secret against a stored digest. */
export function secretMatches (secret: string, storedDigest: string): boolean {
  const presented = Buffer.from(digestSecret(secret), 'hex')
  const stored = Buffer.from(storedDigest, 'hex')
  return presented.length === stored.length && timingSafeEqual(presented, stored)
}
