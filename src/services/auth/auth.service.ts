import type { ResolvedConfig } from '../../config/schema.js'
import type { Principal } from '../../domain/principal.js'
import type { CounterStore } from '../../storage/counters/counter-store.js'
import type { Store } from '../../storage/db.js'
import { authenticateToken } from './authenticate.service.js'
import { LoginLockout } from './lockout.js'
import { login, type IssuedToken, type KeyPair } from './login.service.js'
import { createTokenService } from './tokens.js'

export interface AuthService {
  /** POST /auth/login: a key pair for a bearer token. */
  login: (pair: KeyPair, ip: string) => Promise<IssuedToken>
  /** The principal of a bearer token (undefined: the request carried none). */
  authenticate: (token: string | undefined) => Promise<Principal>
}

export function createAuthService (deps: { config: ResolvedConfig, store: Store, counters: CounterStore }): AuthService {
  const { config, store, counters } = deps
  const tokens = createTokenService({ secret: config.jwtSecret, algorithm: config.jwtAlgorithm, ttlSeconds: config.tokenTtlSeconds })
  const lockout = new LoginLockout(counters, config.login, config.redisFallbackDivisor)
  const loginDeps = { db: store.db, tokens, lockout, tokenTtlSeconds: config.tokenTtlSeconds }
  return {
    login: async (pair, ip) => await login(loginDeps, pair, ip),
    authenticate: async (token) => await authenticateToken(store.db, tokens, token),
  }
}
