import { collectDefaultMetrics, Registry } from 'prom-client'
import type { CounterStore } from '../../storage/counters/counter-store.js'
import type { Store } from '../../storage/db.js'
import type { CacheStats } from '../access-cache.js'
import { registerImportMetrics } from './import-metrics.js'
import { registerStoreMetrics } from './store-metrics.js'
import { registerWebhookMetrics, type WebhookMetricsSource } from './webhook-metrics.js'

/**
 * The Prometheus registry of one process (docs/operations.md "Metrics"): the process defaults
 * (event-loop lag, heap, GC, CPU), the services' and the store's gauges; the HTTP app adds its
 * request metrics (src/http/metrics/). Created only when METRICS_PORT is set: with metrics off,
 * nothing is counted beyond the plain numbers the services keep anyway.
 */
export interface MetricsSources {
  store: Store
  counters: CounterStore
  redis: boolean
  caches: Readonly<Record<string, CacheStats>>
  now: () => number
  webhookAttempts: WebhookMetricsSource['attemptsByOutcome']
}

export function createMetricsRegistry (): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return registry
}

export function registerServiceMetrics (registry: Registry, sources: MetricsSources): void {
  registerStoreMetrics(registry, sources)
  registerImportMetrics(registry, sources.store, sources.now)
  registerWebhookMetrics(registry, { store: sources.store, attemptsByOutcome: sources.webhookAttempts, now: sources.now })
}
