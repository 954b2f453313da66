import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.js'
import { findTokenPrincipal } from '../storage/repositories/auth.repository.js'
import type { Database } from '../storage/database.js'
import type { Kysely } from 'kysely'
import { tokenInvalid, type TokenService } from './tokens.js'
import type { AuthenticatedUser } from './types.js'

/**
 * The one authentication hook of the partner scope (DECISIONS.md §3). Order: a usable
 * `Authorization: Bearer <token>` header (else INVALID_CREDENTIALS), a valid token (else
 * TOKEN_INVALID / TOKEN_EXPIRED), a user that still exists with the credential the token was
 * issued for still live (else TOKEN_INVALID), and not disabled (else USER_DISABLED). The user and
 * credential are read on every request, so disabling and rotating apply at once to issued tokens.
 */

export const NOT_AUTHENTICATED_DETAIL = 'Not authenticated'
export const USER_DISABLED_DETAIL = 'User account is disabled'

function notAuthenticated (): AppError {
  return new AppError('INVALID_CREDENTIALS', NOT_AUTHENTICATED_DETAIL, { headers: { 'www-authenticate': 'Bearer' } })
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerToken (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = /^\s*(\S+)(?:\s+(.*))?$/s.exec(header)
  if (match === null || match[1]?.toLowerCase() !== 'bearer') return undefined
  const token = match[2]?.trim() ?? ''
  return token === '' ? undefined : token
}

export async function authenticateToken (db: Kysely<Database>, tokens: TokenService, header: string | undefined): Promise<AuthenticatedUser> {
  const token = bearerToken(header)
  if (token === undefined) throw notAuthenticated()
  const claims = tokens.verify(token)
  const principal = await findTokenPrincipal(db, claims.sub, claims.cid)
  if (principal === undefined || !principal.credential_found || principal.credential_revoked_at !== null) throw tokenInvalid()
  if (principal.disabled_at !== null) throw new AppError('USER_DISABLED', USER_DISABLED_DETAIL)
  return { userId: principal.user_id, name: principal.name }
}

/** Builds the onRequest hook; `request.user` is set when it returns. */
export function createAuthenticationHook (db: Kysely<Database>, tokens: TokenService) {
  return async function authenticate (request: FastifyRequest): Promise<void> {
    request.user = await authenticateToken(db, tokens, request.headers.authorization)
  }
}
