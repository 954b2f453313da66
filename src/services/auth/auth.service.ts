import type { ResolvedConfig } from '../../config/schema.js'
import type { Principal } from '../../domain/principal.js'
import type { CounterStore } from '../../storage/counters/counter-store.js'
import type { Store } from '../../storage/db.js'
import { createAccessCache, newCacheStats, type CacheStats, type Clock } from '../access-cache.js'
import { authenticateToken, readStanding } from './authenticate.service.js'
import { LoginLockout } from './lockout.js'
import { login, type IssuedToken, type KeyPair } from './login.service.js'
import { createTokenService } from './tokens.js'

export interface AuthService {
  /** POST /auth/login: a key pair for a bearer token. */
  login: (pair: KeyPair, ip: string) => Promise<IssuedToken>
  /** The principal of a bearer token (undefined: the request carried none). */
  authenticate: (token: string | undefined) => Promise<Principal>
}

/** The auth caches' lookups and misses (/metrics). */
export interface AuthCacheStats {
  /** Verified tokens (tokens.ts). */
  tokens: CacheStats
  /** The standing of a token's user and credential (read from the primary, cached ACCESS_CACHE_TTL_MS). */
  standing: CacheStats
}

export function createAuthService (deps: { config: ResolvedConfig, store: Store, counters: CounterStore, clock?: Clock, now?: () => number, stats?: AuthCacheStats }): AuthService {
  const { config, store, counters } = deps
  const stats = deps.stats ?? { tokens: newCacheStats(), standing: newCacheStats() }
  const tokens = createTokenService({ secret: config.jwtSecret, algorithm: config.jwtAlgorithm, ttlSeconds: config.tokenTtlSeconds }, deps.now, stats.tokens)
  const lockout = new LoginLockout(counters, config.login, config.redisFallbackDivisor)
  const loginDeps = { db: store.db, tokens, lockout, tokenTtlSeconds: config.tokenTtlSeconds }
  // Keyed by user and credential; a NUL cannot occur in either (ids and keys are issued by us).
  const standing = createAccessCache(async (key) => {
    const [userId = '', clientKey = ''] = key.split('\u0000')
    return await readStanding(store.db, userId, clientKey)
  }, deps.clock, stats.standing)
  return {
    login: async (pair, ip) => await login(loginDeps, pair, ip),
    authenticate: async (token) => await authenticateToken(tokens, token, async (userId, clientKey) => await standing(`${userId}\u0000${clientKey}`)),
  }
}
