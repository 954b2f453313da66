import type { ResolvedConfig } from '../config/schema.js'
import type { CounterStore } from '../storage/counters/counter-store.js'
import type { Store } from '../storage/db.js'
import { createAccessService, type AccessService } from './access/access.service.js'
import type { Clock } from './access-cache.js'
import { createAnalyticsService, type AnalyticsService } from './analytics/analytics.service.js'
import { createCatalogService, type CatalogService } from './catalog/catalog.service.js'
import { createAuthService, type AuthService } from './auth/auth.service.js'
import { createHealthService, type HealthService } from './health.service.js'
import { createImportService, type ImportService } from './import/import.service.js'
import { createPartnersService, type PartnersService } from './partners/me.service.js'
import { createPostsService, type PostsService } from './posts/posts.service.js'
import { createRateLimitService, type RateLimitService } from './ratelimit/rate-limit.service.js'
import { createUsageService, type UsageService } from './ratelimit/usage.service.js'
import { createUsersService, type UsersService } from './users/users.service.js'

/**
 * The one place the services are wired: the HTTP app (src/http/app.ts) and the CLI
 * (src/cli/commands/*) both get theirs here. Services take domain types and return them; they
 * know nothing of Fastify, of cursors or of the wire format.
 */

export interface ServiceDeps {
  config: ResolvedConfig
  store: Store
  /** Rate-limit and lockout state: in process, or Redis when REDIS_URL is set. */
  counters: CounterStore
  /** The clock of the access caches (tests advance their own); performance.now by default. */
  clock?: Clock
  /**
   * The wall clock, ms since the epoch (Date.now by default): token lifetimes, the UTC "today" of
   * default periods, the age of a /posts walk. Tests fix it rather than wait or race midnight.
   */
  now?: () => number
}

export interface Services {
  auth: AuthService
  access: AccessService
  rateLimits: RateLimitService
  partners: PartnersService
  analytics: AnalyticsService
  posts: PostsService
  users: UsersService
  imports: ImportService
  health: HealthService
  catalog: CatalogService
  usage: UsageService
  /** The wall clock the services and the routes read (ServiceDeps.now). */
  now: () => number
}

export function createServices (deps: ServiceDeps): Services {
  const { config, store, counters } = deps
  const now = deps.now ?? Date.now
  return {
    auth: createAuthService({ config, store, counters, clock: deps.clock, now }),
    access: createAccessService({ store, clock: deps.clock }),
    rateLimits: createRateLimitService({ config, counters }),
    partners: createPartnersService({ store }),
    analytics: createAnalyticsService({ store }),
    posts: createPostsService({ store, now }),
    users: createUsersService({ store }),
    imports: createImportService({ store }),
    health: createHealthService({ store, counters }),
    catalog: createCatalogService({ store }),
    usage: createUsageService({ config, store }),
    now,
  }
}
