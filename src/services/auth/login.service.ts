import type { Kysely } from 'kysely'
import { AppError, rateLimitExceeded } from '../../domain/errors.js'
import type { Database } from '../../storage/database.js'
import { findActiveCredential, findUserById } from '../../storage/repositories/users.repository.js'
import { CLIENT_KEY_PATTERN, SECRET_KEY_PATTERN, digestSecret, secretMatches } from './credentials.js'
import type { LoginLockout } from './lockout.js'
import type { TokenService } from './tokens.js'

/**
 * POST /auth/login (docs/api-reference.md "Authentication"), in the order the contract implies (the body's shape, 422, is
 * the route's schema): the key formats (401 "Malformed …", not counted as failures), the lockout (TOO_MANY_ATTEMPTS,
 * even for a correct pair; 429 while too many attempts are in flight; the attempt is counted in flight in the same
 * step), the pair itself (a wrong one becomes a failure), and finally a disabled user (403).
 */

export const LOGIN_DETAILS = {
  malformedClientKey: 'Malformed API client key',
  malformedSecretKey: 'Malformed API secret key',
  invalidPair: 'Invalid API client key or secret',
  tooManyAttempts: 'Too many failed login attempts. Please try again later.',
  userDisabled: 'User account is disabled',
} as const

/** A bearer token as login issues it. */
export interface IssuedToken {
  accessToken: string
  /** Seconds of validity (TOKEN_TTL_SECONDS). */
  expiresIn: number
  userId: string
}

/** A presented key pair, already known to be two strings (the route's body schema). */
export interface KeyPair {
  clientKey: string
  secretKey: string
}

export interface LoginDeps {
  db: Kysely<Database>
  tokens: TokenService
  lockout: LoginLockout
  tokenTtlSeconds: number
}

/** Compared against when the client key is unknown, so both paths cost one digest comparison. */
const UNKNOWN_KEY_DIGEST = digestSecret('pas_unknown-client-key-placeholder')

function invalidCredentials (detail: string, extraHeaders: Record<string, string> = {}): AppError {
  return new AppError('INVALID_CREDENTIALS', detail, { headers: { 'www-authenticate': 'Bearer', ...extraHeaders } })
}

/**
 * A login refused before its pair is checked: the lockout's 401 while a lock lives; a retryable
 * 429 (the rate limit's body: docs/api-reference.md "Rate limiting") while too many attempts for
 * the key or address are still being checked — those are not failures.
 */
function refusal (reason: 'locked' | 'busy', seconds: number): AppError {
  if (reason === 'locked') {
    return new AppError('TOO_MANY_ATTEMPTS', LOGIN_DETAILS.tooManyAttempts, {
      headers: { 'www-authenticate': 'Bearer', 'retry-after': String(seconds) },
    })
  }
  return rateLimitExceeded(seconds)
}

export async function login (deps: LoginDeps, pair: KeyPair, ip: string): Promise<IssuedToken> {
  const { clientKey, secretKey } = pair
  // Key first: when both are malformed the client-key detail wins (docs/api-reference.md).
  if (!CLIENT_KEY_PATTERN.test(clientKey)) throw invalidCredentials(LOGIN_DETAILS.malformedClientKey)
  if (!SECRET_KEY_PATTERN.test(secretKey)) throw invalidCredentials(LOGIN_DETAILS.malformedSecretKey)

  // The lock check and the count of this attempt in flight are one atomic step (lockout.ts):
  // concurrent wrong logins cannot all pass the check before any of them is counted.
  const admission = await deps.lockout.begin(clientKey, ip)
  if (!admission.admitted) throw refusal(admission.reason, admission.retryAfterSeconds)
  const attempt = admission.attempt

  let credential: Awaited<ReturnType<typeof findActiveCredential>>
  try {
    credential = await findActiveCredential(deps.db, clientKey)
  } catch (error) {
    // Not judged, so not a failure: a database outage must not lock partners out.
    await deps.lockout.settle(attempt, 'abandoned')
    throw error
  }
  if (!deps.lockout.stillCounted(attempt)) {
    // The lookup outlived the attempt's place in flight (serving deadlines end it far sooner):
    // judging it now could evaluate one guess more than the limit allows. A 500, like a lookup that failed.
    await deps.lockout.settle(attempt, 'abandoned')
    throw new Error('login attempt outlived its place in flight before it was judged')
  }
  const matches = secretMatches(secretKey, credential?.secret_digest ?? UNKNOWN_KEY_DIGEST)
  if (credential === undefined || !matches) {
    await deps.lockout.settle(attempt, 'failure')
    throw invalidCredentials(LOGIN_DETAILS.invalidPair)
  }

  await deps.lockout.settle(attempt, 'success')
  const user = await findUserById(deps.db, credential.user_id)
  // Cannot be missing (credentials cascade with their user), but never issue a token for nobody.
  if (user === undefined) throw invalidCredentials(LOGIN_DETAILS.invalidPair)
  if (user.disabled_at !== null) throw new AppError('USER_DISABLED', LOGIN_DETAILS.userDisabled)

  return {
    accessToken: deps.tokens.issue({ sub: user.user_id, cid: credential.client_key }),
    expiresIn: deps.tokenTtlSeconds,
    userId: user.user_id,
  }
}
