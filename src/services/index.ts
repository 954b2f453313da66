import type { ResolvedConfig } from '../config/schema.js'
import type { CounterStore } from '../storage/counters/counter-store.js'
import type { Store } from '../storage/db.js'
import { createAccessService, type AccessService } from './access/access.service.js'
import type { Registry } from 'prom-client'
import { newCacheStats, type CacheStats, type Clock } from './access-cache.js'
import { createAnalyticsService, type AnalyticsService } from './analytics/analytics.service.js'
import { createReportsService, type ReportsService } from './reports/reports.service.js'
import { createCatalogService, type CatalogService } from './catalog/catalog.service.js'
import { createDataStatusService, type DataStatusService } from './data-status/data-status.service.js'
import { createChangeRetention, type ChangeRetention } from './changes/change-retention.js'
import { createChangesService, type ChangesService } from './changes/changes.service.js'
import { createAuthService, type AuthService } from './auth/auth.service.js'
import { createHealthService, type HealthService } from './health.service.js'
import { createImportService, type ImportService } from './import/import.service.js'
import { createSyncsService, type SyncsService } from './import/syncs.service.js'
import type { ChangesCursorWriter } from './exports/completed-event.js'
import { createExportsServices, type ExportOptions, type ExportsServices } from './exports/index.js'
import { createForegroundLoad, type ForegroundLoad } from './foreground-load.js'
import { registerServiceMetrics } from './metrics/index.js'
import { createPartnersService, type PartnersService } from './partners/me.service.js'
import { createPostsService, type PostsService } from './posts/posts.service.js'
import { createRateLimitService, type RateLimitService } from './ratelimit/rate-limit.service.js'
import { createUsageService, type UsageService } from './ratelimit/usage.service.js'
import { createUsersService, type UsersService } from './users/users.service.js'
import { createWebhooksServices, type WebhookOptions, type WebhooksServices } from './webhooks/index.js'

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
  /**
   * Replaces the store's rule for which syncs partners may see now (store.reads; tests hold
   * events back with it): GET /changes and the webhooks never show an event of a later sync.
   */
  visibleThroughSyncId?: () => number | undefined
  /** The Prometheus registry (src/services/metrics/) when METRICS_PORT is set; the services' gauges join it. */
  metrics?: Registry
  /** The webhooks' resolver, replica hook and time limits (tests and the replicas' wiring set them). */
  webhooks?: WebhookOptions
  /** The export worker's lease and poll (tests shorten them). */
  exports?: ExportOptions
  /**
   * Writes a user's unfiltered GET /changes cursor after an event number: the HTTP layer's
   * encoding (src/http/cursors/changes-cursor.ts, unfilteredChangesCursor), which the
   * export.completed webhook event carries as its manifest does. `serve` (and the tests' app)
   * give it; without it the export worker announces nothing (scripts that never run exports).
   */
  changesCursor?: ChangesCursorWriter
}

export interface Services {
  auth: AuthService
  access: AccessService
  rateLimits: RateLimitService
  partners: PartnersService
  analytics: AnalyticsService
  reports: ReportsService
  dataStatus: DataStatusService
  posts: PostsService
  users: UsersService
  imports: ImportService
  /** The recorded syncs (committed imports), for operators. */
  syncs: SyncsService
  health: HealthService
  catalog: CatalogService
  usage: UsageService
  changes: ChangesService
  /** The change feed's background purge: wired here, started only by `serve`. */
  changeRetention: ChangeRetention
  /** Webhook endpoints, deliveries and the delivery worker (started by `serve` only). */
  webhooks: WebhooksServices
  /** Bulk export jobs, their files and the export worker (started by `serve` only). */
  exports: ExportsServices
  /** How busy the API keeps the process; the webhook deliveries give way to it. */
  foreground: ForegroundLoad
  /** The wall clock the services and the routes read (ServiceDeps.now). */
  now: () => number
  /** The Prometheus registry, when metrics are on (the app adds its request metrics to it). */
  metrics: Registry | undefined
  /**
   * The highest sync id whose events partners may see now (src/storage/replicas/sync-visibility.ts):
   * the change feed and the webhooks hold back events of later syncs, so that after receiving
   * one a partner never reads older data from any instance. undefined: no replicas, all visible.
   */
  visibleThroughSyncId: () => number | undefined
  /** Lookups and misses of the access caches, by cache (tokens, standing, grants). */
  caches: Readonly<Record<'tokens' | 'standing' | 'grants', CacheStats>>
}

export function createServices (deps: ServiceDeps): Services {
  const { config, store, counters } = deps
  const now = deps.now ?? Date.now
  const caches = { tokens: newCacheStats(), standing: newCacheStats(), grants: newCacheStats() }
  const visibleThroughSyncId = deps.visibleThroughSyncId ?? (() => store.reads.visibleThroughSyncId())
  const foreground = createForegroundLoad()
  const webhooks = createWebhooksServices({ config, store, now, foreground, options: { visibleThroughSyncId, ...deps.webhooks } })
  if (deps.metrics !== undefined) {
    registerServiceMetrics(deps.metrics, { store, counters, redis: config.redisUrl !== undefined, caches, now, webhookAttempts: webhooks.worker.attemptsByOutcome })
  }
  return {
    auth: createAuthService({ config, store, counters, clock: deps.clock, now, stats: caches }),
    access: createAccessService({ store, clock: deps.clock, stats: caches.grants }),
    rateLimits: createRateLimitService({ config, counters }),
    partners: createPartnersService({ store }),
    analytics: createAnalyticsService({ store }),
    reports: createReportsService({ store }),
    dataStatus: createDataStatusService({ store }),
    posts: createPostsService({ store, now }),
    users: createUsersService({ store, now }),
    imports: createImportService({ store }),
    syncs: createSyncsService({ store }),
    health: createHealthService({ store, counters }),
    catalog: createCatalogService({ store }),
    usage: createUsageService({ config, store }),
    changes: createChangesService({ store, retentionDays: config.changes.retentionDays, now, visibleThroughSyncId }),
    changeRetention: createChangeRetention({ store, retentionDays: config.changes.retentionDays, now }),
    webhooks,
    exports: createExportsServices({ config, store, now, foreground, changesCursor: deps.changesCursor, options: deps.exports }),
    foreground,
    now,
    metrics: deps.metrics,
    visibleThroughSyncId,
    caches,
  }
}
