import { createSigner, createVerifier, TokenError } from 'fast-jwt'
import type { JwtAlgorithm } from '../../config/schema.js'
import { AppError } from '../../domain/errors.js'

/**
 * Access tokens: JWTs signed with the one configured HMAC algorithm (docs/api-reference.md "Authentication"). The
 * verifier accepts only that algorithm, so `alg: none` and every other algorithm fail as
 * TOKEN_INVALID; TOKEN_EXPIRED is reserved for a token whose signature verified but whose `exp`
 * has passed (fast-jwt checks the signature before the claims).
 */

export interface TokenClaims {
  /** The user id. */
  sub: string
  /** The client key the token was issued for: rotating it invalidates the token. */
  cid: string
}

export interface TokenServiceOptions {
  secret: string
  algorithm: JwtAlgorithm
  ttlSeconds: number
}

export const TOKEN_INVALID_DETAIL = 'Could not validate credentials'
export const TOKEN_EXPIRED_DETAIL = 'Token has expired'

/** The `WWW-Authenticate` value of TOKEN_INVALID and TOKEN_EXPIRED (RFC 6750 §3). */
export const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"'

export function tokenInvalid (): AppError {
  return new AppError('TOKEN_INVALID', TOKEN_INVALID_DETAIL, { headers: { 'www-authenticate': INVALID_TOKEN_CHALLENGE } })
}

export interface TokenService {
  issue: (claims: TokenClaims) => string
  /** The claims of a valid token; throws TOKEN_INVALID or TOKEN_EXPIRED otherwise. */
  verify: (token: string) => TokenClaims
}

export function createTokenService (options: TokenServiceOptions): TokenService {
  const signer = createSigner({ key: options.secret, algorithm: options.algorithm, expiresIn: options.ttlSeconds * 1000 })
  const verifier = createVerifier({
    key: options.secret,
    algorithms: [options.algorithm],
    requiredClaims: ['sub', 'cid', 'exp'],
  })

  return {
    issue: (claims) => signer({ sub: claims.sub, cid: claims.cid }),
    verify: (token) => {
      let payload: Record<string, unknown>
      try {
        payload = verifier(token) as Record<string, unknown>
      } catch (error) {
        if (error instanceof TokenError && error.code === TokenError.codes.expired) {
          throw new AppError('TOKEN_EXPIRED', TOKEN_EXPIRED_DETAIL, { headers: { 'www-authenticate': INVALID_TOKEN_CHALLENGE } })
        }
        throw tokenInvalid()
      }
      if (typeof payload.sub !== 'string' || typeof payload.cid !== 'string') throw tokenInvalid()
      return { sub: payload.sub, cid: payload.cid }
    },
  }
}
