import type { Kysely } from 'kysely'
import { AppError, issue, validationError, type ValidationIssue } from '../errors.js'
import type { Database } from '../storage/database.js'
import { findActiveCredential, findUserById } from '../storage/repositories/users.repository.js'
import { CLIENT_KEY_PATTERN, SECRET_KEY_PATTERN, digestSecret, secretMatches } from './credentials.js'
import type { LoginLockout } from './lockout.js'
import type { TokenService } from './tokens.js'

/**
 * POST /auth/login (DECISIONS.md §3), in the order the contract implies: the body's shape (422),
 * the key formats (401 "Malformed …", not counted as failures), the lockout (TOO_MANY_ATTEMPTS,
 * even for a correct pair), the pair itself (counted when wrong), and finally a disabled user (403).
 */

export const LOGIN_DETAILS = {
  malformedClientKey: 'Malformed API client key',
  malformedSecretKey: 'Malformed API secret key',
  invalidPair: 'Invalid API client key or secret',
  tooManyAttempts: 'Too many failed login attempts. Please try again later.',
  userDisabled: 'User account is disabled',
} as const

export interface TokenResponse {
  access_token: string
  token_type: 'bearer'
  expires_in: number
  user_id: string
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

/** Both fields must be present and strings; anything else (numbers included) is a 422. */
export function parseLoginBody (body: unknown): { clientKey: string, secretKey: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([issue(['body'], 'Input should be a valid JSON object', 'model_attributes_type')])
  }
  const fields = body as Record<string, unknown>
  const issues: ValidationIssue[] = []
  for (const name of ['api_client_key', 'api_secret_key']) {
    const value = fields[name]
    if (value === undefined) issues.push(issue(['body', name], 'Field required', 'missing'))
    else if (typeof value !== 'string') issues.push(issue(['body', name], 'Input should be a valid string', 'string_type'))
  }
  if (issues.length > 0) throw validationError(issues)
  return { clientKey: fields.api_client_key as string, secretKey: fields.api_secret_key as string }
}

export async function login (deps: LoginDeps, body: unknown, ip: string): Promise<TokenResponse> {
  const { clientKey, secretKey } = parseLoginBody(body)
  // Key first: when both are malformed the client-key detail wins (DECISIONS.md §10).
  if (!CLIENT_KEY_PATTERN.test(clientKey)) throw invalidCredentials(LOGIN_DETAILS.malformedClientKey)
  if (!SECRET_KEY_PATTERN.test(secretKey)) throw invalidCredentials(LOGIN_DETAILS.malformedSecretKey)

  const lock = await deps.lockout.check(clientKey, ip)
  if (lock.locked) {
    throw new AppError('TOO_MANY_ATTEMPTS', LOGIN_DETAILS.tooManyAttempts, {
      headers: { 'www-authenticate': 'Bearer', 'retry-after': String(lock.retryAfterSeconds) },
    })
  }

  const credential = await findActiveCredential(deps.db, clientKey)
  const matches = secretMatches(secretKey, credential?.secret_digest ?? UNKNOWN_KEY_DIGEST)
  if (credential === undefined || !matches) {
    await deps.lockout.recordFailure(clientKey, ip)
    throw invalidCredentials(LOGIN_DETAILS.invalidPair)
  }

  await deps.lockout.recordSuccess(clientKey)
  const user = await findUserById(deps.db, credential.user_id)
  // Cannot be missing (credentials cascade with their user), but never issue a token for nobody.
  if (user === undefined) throw invalidCredentials(LOGIN_DETAILS.invalidPair)
  if (user.disabled_at !== null) throw new AppError('USER_DISABLED', LOGIN_DETAILS.userDisabled)

  return {
    access_token: deps.tokens.issue({ sub: user.user_id, cid: credential.client_key }),
    token_type: 'bearer',
    expires_in: deps.tokenTtlSeconds,
    user_id: user.user_id,
  }
}
