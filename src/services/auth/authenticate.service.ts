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
 * (else USER_DISABLED). The user and credential are read on every request, so disabling and
 * rotating apply to issued tokens at their next request.
 */

export const NOT_AUTHENTICATED_DETAIL = 'Not authenticated'
export const USER_DISABLED_DETAIL = 'User account is disabled'

function notAuthenticated (): AppError {
  return new AppError('INVALID_CREDENTIALS', NOT_AUTHENTICATED_DETAIL, { headers: { 'www-authenticate': 'Bearer' } })
}

/** @param token the bearer token, or undefined when the request carried none */
export async function authenticateToken (db: Kysely<Database>, tokens: TokenService, token: string | undefined): Promise<Principal> {
  if (token === undefined) throw notAuthenticated()
  const claims = tokens.verify(token)
  const principal = await findTokenPrincipal(db, claims.sub, claims.cid)
  if (principal === undefined || !principal.credential_found || principal.credential_revoked_at !== null) throw tokenInvalid()
  if (principal.disabled_at !== null) throw new AppError('USER_DISABLED', USER_DISABLED_DETAIL)
  return { userId: principal.user_id, name: principal.name }
}
