import { createSigner, createVerifier } from 'fast-jwt'
import { LRUCache } from 'lru-cache'
import type { JwtAlgorithm } from '../../config/schema.js'
import { AppError } from '../../domain/errors.js'
import { newCacheStats, type CacheStats } from '../access-cache.js'

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

/** How far in the future an `iat` may be: the clocks of several instances differ a little. */
export const MAX_CLOCK_SKEW_SECONDS = 60

/** Longer than any token we issue (about 250 characters): refused before any parsing. */
export const MAX_TOKEN_LENGTH = 4096

/**
 * Tokens whose signature and claims were checked, kept so that a token used again (a dashboard
 * polling, an ETL job paging) is not verified again: the HMAC is a fifth of a daily page's work.
 * Keyed by the whole token, so any other string is verified from scratch; expiry is still judged
 * on every use; revocation and disabled users are judged after this, on every request
 * (src/services/auth/authenticate.service.ts). At most this many, the least recently used dropped.
 */
export const VERIFIED_TOKENS_KEPT = 10_000

/** Longest string claim we would issue (`sub`, `cid` are under 30 characters). */
const MAX_STRING_CLAIM_LENGTH = 128

/** C0 controls, DEL and C1 controls: never in a claim we issue, and NUL is refused by PostgreSQL. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/

export function createTokenService (options: TokenServiceOptions, now: () => number = Date.now, stats: CacheStats = newCacheStats()): TokenService {
  const signer = createSigner({ key: options.secret, algorithm: options.algorithm, expiresIn: options.ttlSeconds * 1000 })
  const verifier = createVerifier({
    key: options.secret,
    algorithms: [options.algorithm],
    requiredClaims: ['sub', 'cid', 'iat', 'exp'],
    // Expiry is judged below, after the claims are known to be ones we could have issued.
    ignoreExpiration: true,
  })

  const verified = new LRUCache<string, TokenClaims & { iat: number, exp: number }>({ max: VERIFIED_TOKENS_KEPT })

  /** The claims of a correctly signed token we could have issued; throws TOKEN_INVALID otherwise. */
  function checked (token: string): TokenClaims & { iat: number, exp: number } {
    let payload: Record<string, unknown>
    try {
      // fast-jwt checks the signature (and the algorithm) before it looks at any claim.
      payload = verifier(token) as Record<string, unknown>
    } catch {
      throw tokenInvalid()
    }
    const claims = issuedClaims(payload, options.ttlSeconds, now())
    if (claims === undefined) throw tokenInvalid()
    return claims
  }

  return {
    // iat from the same clock that judges expiry (exp = iat + the lifetime).
    issue: (claims) => signer({ sub: claims.sub, cid: claims.cid, iat: Math.floor(now() / 1000) }),
    verify: (token) => {
      if (token.length > MAX_TOKEN_LENGTH) throw tokenInvalid()
      stats.lookups += 1
      let claims = verified.get(token)
      if (claims === undefined) {
        stats.misses += 1
        claims = checked(token)
        verified.set(token, claims)
      }
      if (now() > claims.exp * 1000) {
        throw new AppError('TOKEN_EXPIRED', TOKEN_EXPIRED_DETAIL, { headers: { 'www-authenticate': INVALID_TOKEN_CHALLENGE } })
      }
      return { sub: claims.sub, cid: claims.cid }
    },
  }
}

/**
 * The claims of a correctly signed token, if they are claims this service would issue
 * (docs/authentication.md "Tokens"): tokens are only ever issued here, so anything else means a
 * leaked key or a bug, and is refused before any value reaches the store.
 * - `iat` and `exp` whole numbers (not 1.5, not 1e400 = Infinity), `iat` not more than
 *   MAX_CLOCK_SKEW_SECONDS ahead, `exp` after `iat` by at most the configured lifetime;
 * - `nbf`, if present, a whole number too (fast-jwt has already checked it has passed);
 * - every string claim 1 to 128 characters without control characters.
 */
function issuedClaims (payload: Record<string, unknown>, ttlSeconds: number, nowMs: number): (TokenClaims & { iat: number, exp: number }) | undefined {
  const { sub, cid, iat, exp, nbf } = payload
  if (typeof sub !== 'string' || typeof cid !== 'string') return undefined
  if (!isWholeSeconds(iat) || !isWholeSeconds(exp)) return undefined
  if (nbf !== undefined && !isWholeSeconds(nbf)) return undefined
  if (iat * 1000 > nowMs + MAX_CLOCK_SKEW_SECONDS * 1000) return undefined
  if (exp <= iat || exp - iat > ttlSeconds) return undefined
  for (const value of Object.values(payload)) {
    if (typeof value === 'string' && (value.length === 0 || value.length > MAX_STRING_CLAIM_LENGTH || CONTROL_CHARACTER.test(value))) return undefined
  }
  return { sub, cid, iat, exp }
}

function isWholeSeconds (value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}
