import type { ResolvedConfig } from '../../config/schema.js'
import type { Store } from '../../storage/db.js'
import type { ForegroundLoad } from '../foreground-load.js'
import { createDeliveriesService, type DeliveriesService } from './deliveries.service.js'
import { createDeliveryWorker, type DeliveryWorker } from './delivery-worker.js'
import { createEndpointsService, type EndpointsService } from './endpoints.service.js'
import { createNameLookups, type LookupLimits } from './name-lookups.js'
import { dnsResolver, type Resolver } from './target-policy.js'

/** Webhooks wired together: the partner's endpoints and deliveries, and the delivery worker they wake. */

export interface WebhookOptions {
  /** How host names resolve (tests inject names of their own); WEBHOOK_DNS_SERVERS or the system's name servers by default. */
  resolver?: Resolver
  /** Bounds of the host name lookups (LOOKUP_LIMITS by default; tests try others). */
  lookupLimits?: LookupLimits
  /**
   * For read replicas: the newest sync every replica has applied. Events of later syncs are not
   * sent until it reaches them (events without a sync are never held); undefined: no limit.
   */
  visibleThroughSyncId?: () => number | undefined
  /** An attempt's time limit (10 s; tests shorten it). */
  timeoutMs?: number
  /** How long a claim holds a delivery (3 × the time limit by default). */
  leaseMs?: number
  /** How often the worker looks for due deliveries (250 ms). */
  pollMs?: number
  /** Whether the API keeps the process busy (tests inject one; the services' own by default). */
  foreground?: Pick<ForegroundLoad, 'busy'>
}

export interface WebhooksServices {
  endpoints: EndpointsService
  deliveries: DeliveriesService
  worker: DeliveryWorker
}

export function createWebhooksServices (deps: { config: ResolvedConfig, store: Store, now: () => number, foreground: ForegroundLoad, options?: WebhookOptions }): WebhooksServices {
  const { config, store, now, foreground, options = {} } = deps
  // One set of bounded lookups for the routes and the worker: a partner's share covers both.
  const lookups = createNameLookups(options.resolver ?? dnsResolver(config.webhooks.dnsServers), options.lookupLimits)
  const worker = createDeliveryWorker({
    store,
    allowPrivate: config.webhooks.allowPrivate,
    retrySchedule: config.webhooks.retrySchedule,
    concurrency: config.webhooks.concurrency,
    concurrencyPerEndpoint: config.webhooks.concurrencyPerEndpoint,
    retentionDays: config.changes.retentionDays,
    visibleThroughSyncId: options.visibleThroughSyncId,
    lookups,
    timeoutMs: options.timeoutMs,
    leaseMs: options.leaseMs,
    pollMs: options.pollMs,
    foreground: options.foreground ?? foreground,
  })
  const wake = (): void => worker.wake()
  const endpoints = createEndpointsService({ store, allowPrivate: config.webhooks.allowPrivate, lookups, now, wake })
  const deliveries = createDeliveriesService({ store, endpoints, now, wake })
  return { endpoints, deliveries, worker }
}
