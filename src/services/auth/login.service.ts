import type { Kysely } from 'kysely'
import { AppError } from '../../domain/errors.js'
import type { Database } from '../../storage/database.js'
import { findActiveCredential, findUserById } from '../../storage/repositories/users.repository.js'
import { CLIENT_KEY_PATTERN, SECRET_KEY_PATTERN, digestSecret, secretMatches } from './credentials.js'
import type { LoginLockout } from './lockout.js'
import type { TokenService } from './tokens.js'

/**
 * POST /auth/login (docs/api-reference.md "Authentication"), in the order the contract implies (the body's shape, 422, is
 * the route's schema): the key formats (401 "Malformed …", not counted as failures), the lockout (TOO_MANY_ATTEMPTS,
 * even for a correct pair; the attempt is counted in the same step), the pair itself (the count stays when wrong), and
 * finally a disabled user (403).
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

export async function login (deps: LoginDeps, pair: KeyPair, ip: string): Promise<IssuedToken> {
  const { clientKey, secretKey } = pair
  // Key first: when both are malformed the client-key detail wins (docs/api-reference.md).
  if (!CLIENT_KEY_PATTERN.test(clientKey)) throw invalidCredentials(LOGIN_DETAILS.malformedClientKey)
  if (!SECRET_KEY_PATTERN.test(secretKey)) throw invalidCredentials(LOGIN_DETAILS.malformedSecretKey)

  // The lock check and the count of this attempt are one atomic step (lockout.ts): concurrent
  // wrong logins cannot all pass the check before any of them is counted.
  const lock = await deps.lockout.begin(clientKey, ip)
  if (lock.locked) {
    throw new AppError('TOO_MANY_ATTEMPTS', LOGIN_DETAILS.tooManyAttempts, {
      headers: { 'www-authenticate': 'Bearer', 'retry-after': String(lock.retryAfterSeconds) },
    })
  }

  let credential: Awaited<ReturnType<typeof findActiveCredential>>
  try {
    credential = await findActiveCredential(deps.db, clientKey)
  } catch (error) {
    // Not judged, so not a failure: a database outage must not lock partners out.
    await deps.lockout.abandon(clientKey, ip)
    throw error
  }
  const matches = secretMatches(secretKey, credential?.secret_digest ?? UNKNOWN_KEY_DIGEST)
  if (credential === undefined || !matches) {
    await deps.lockout.recordFailure(clientKey, ip)
    throw invalidCredentials(LOGIN_DETAILS.invalidPair)
  }

  await deps.lockout.recordSuccess(clientKey, ip)
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
