import type { Kysely } from 'kysely'
import { AppError } from '../../domain/errors.js'
import type { Principal } from '../../domain/principal.js'
import type { Database } from '../../storage/database.js'
import { findTokenPrincipal } from '../../storage/repositories/auth.repository.js'
import { tokenInvalid, type TokenService } from './tokens.js'

/**
 * Who a bearer token acts for (docs/api-reference.md "Authentication"). Order: a token at all (else INVALID_CREDENTIALS
 * "Not authenticated"), a valid one (else TOKEN_INVALID / TOKEN_EXPIRED), a user that still exists
 * with the credential the token was issued for still live (else TOKEN_INVALID), and not disabled
 * (else USER_DISABLED). The user and credential are read from the store at most every
 * ACCESS_CACHE_TTL_MS per (user, credential), so disabling and rotating apply to issued tokens
 * within that bound.
 */

export const NOT_AUTHENTICATED_DETAIL = 'Not authenticated'
export const USER_DISABLED_DETAIL = 'User account is disabled'

function notAuthenticated (): AppError {
  return new AppError('INVALID_CREDENTIALS', NOT_AUTHENTICATED_DETAIL, { headers: { 'www-authenticate': 'Bearer' } })
}

/** What the store says of a token's user and credential. */
type Standing = { kind: 'ok', principal: Principal } | { kind: 'invalid' } | { kind: 'disabled' }

/** The standing of (user, credential), read from the store; cached by the caller (src/services/access-cache.ts). */
export async function readStanding (db: Kysely<Database>, userId: string, clientKey: string): Promise<Standing> {
  const principal = await findTokenPrincipal(db, userId, clientKey)
  if (principal === undefined || !principal.credential_found || principal.credential_revoked_at !== null) return { kind: 'invalid' }
  if (principal.disabled_at !== null) return { kind: 'disabled' }
  return { kind: 'ok', principal: { userId: principal.user_id, name: principal.name } }
}

/**
 * @param token the bearer token, or undefined when the request carried none
 * @param standingOf the (cached) standing of a token's user and credential
 */
export async function authenticateToken (tokens: TokenService, token: string | undefined, standingOf: (userId: string, clientKey: string) => Promise<Standing>): Promise<Principal> {
  if (token === undefined) throw notAuthenticated()
  const claims = tokens.verify(token)
  const standing = await standingOf(claims.sub, claims.cid)
  if (standing.kind === 'invalid') throw tokenInvalid()
  if (standing.kind === 'disabled') throw new AppError('USER_DISABLED', USER_DISABLED_DETAIL)
  return standing.principal
}
