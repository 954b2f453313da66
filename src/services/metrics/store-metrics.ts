import { Counter, Gauge, type Registry } from 'prom-client'
import type { CounterStore } from '../../storage/counters/counter-store.js'
import type { PoolStats, Store } from '../../storage/db.js'
import type { CacheStats } from '../access-cache.js'

/**
 * Gauges of what the services and the store are doing, read at scrape time from the stats they
 * keep anyway (docs/operations.md "Metrics"): nothing here runs per request. With workers the
 * primary sums each worker's (`aggregator` says otherwise where a sum means nothing).
 */

export interface StoreMetricsSources {
  store: Store
  counters: CounterStore
  /** Whether REDIS_URL is set (the fallback gauge is shown only then). */
  redis: boolean
  caches: Readonly<Record<string, CacheStats>>
}

/** A counter whose value is read from `read()` at scrape time (the source only ever grows). */
function readCounter (registry: Registry, name: string, help: string, labelNames: string[], read: () => Array<[Record<string, string>, number]>): void {
  // eslint-disable-next-line no-new -- registered on the registry, which owns it
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect () {
      this.reset()
      for (const [labels, value] of read()) this.inc(labels, value)
    },
  })
}

/** A gauge set from `read()` at scrape time. */
function readGauge (registry: Registry, name: string, help: string, labelNames: string[], read: () => Array<[Record<string, string>, number]>, aggregator: 'sum' | 'max' | 'average' = 'sum'): void {
  // eslint-disable-next-line no-new -- registered on the registry, which owns it
  new Gauge({
    name,
    help,
    labelNames,
    aggregator,
    registers: [registry],
    collect () {
      this.reset()
      for (const [labels, value] of read()) this.set(labels, value)
    },
  })
}

function poolRows (store: string, pool: PoolStats): Array<[Record<string, string>, number]> {
  return [[{ store, state: 'in_use' }, pool.inUse], [{ store, state: 'idle' }, pool.idle], [{ store, state: 'waiting' }, pool.waiting]]
}

const REPLICA_STATES = ['ok', 'behind', 'lagging', 'down', 'unchecked'] as const

export function registerStoreMetrics (registry: Registry, sources: StoreMetricsSources): void {
  const { store } = sources
  readGauge(registry, 'pa_heavy_reports_running', 'Heavy reports running in the heavy lane', [], () => [[{}, store.heavy.stats().running]])
  readGauge(registry, 'pa_heavy_reports_queued', 'Heavy reports waiting for the heavy lane', [], () => [[{}, store.heavy.stats().queued]])
  readCounter(registry, 'pa_heavy_reports_refused_total', 'Heavy reports refused with 503 because the lane was full', [], () => [[{}, store.heavy.stats().refused]])

  readCounter(registry, 'pa_cache_lookups_total', 'Lookups in the access caches (tokens: verified tokens; standing: user and credential; grants)', ['cache'],
    () => Object.entries(sources.caches).map(([cache, stats]) => [{ cache }, stats.lookups]))
  readCounter(registry, 'pa_cache_misses_total', 'Lookups that had to verify or load (the rest were hits)', ['cache'],
    () => Object.entries(sources.caches).map(([cache, stats]) => [{ cache }, stats.misses]))
  readGauge(registry, 'pa_cache_hit_ratio', 'Hits over lookups since the start, per cache (0 before any lookup)', ['cache'],
    () => Object.entries(sources.caches).map(([cache, stats]) => [{ cache }, stats.lookups === 0 ? 0 : 1 - stats.misses / stats.lookups]), 'average')

  readGauge(registry, 'pa_store_pool_connections', 'PostgreSQL pool connections by store (primary, replica_N) and state (in_use, idle, waiting = callers waiting for one)', ['store', 'state'], () => [
    ...(store.dialect === 'postgres' ? poolRows('primary', store.poolStats()) : []),
    ...store.reads.replicas().flatMap((replica) => poolRows(`replica_${replica.id}`, replica.pool)),
  ])
  readGauge(registry, 'pa_replica_state', 'Each read replica\'s state (1 for the state it is in)', ['replica', 'state'],
    () => store.reads.replicas().flatMap((replica) => REPLICA_STATES.map((state): [Record<string, string>, number] => [{ replica: String(replica.id), state }, replica.state === state ? 1 : 0])), 'max')
  readGauge(registry, 'pa_replica_lag_seconds', 'How long each replica has been missing WAL the primary had (-1: unknown)', ['replica'],
    () => store.reads.replicas().map((replica) => [{ replica: String(replica.id) }, replica.lagMs === null ? -1 : replica.lagMs / 1000]), 'max')
  readGauge(registry, 'pa_replica_skipped', '1 while reads do not go to this replica', ['replica'],
    () => store.reads.replicas().map((replica) => [{ replica: String(replica.id) }, replica.skipped ? 1 : 0]), 'max')
  readCounter(registry, 'pa_store_reads_total', 'Partner reads by where they ran: replica, primary (no replica current) or primary_after_replica_error', ['target'], () => {
    const counts = store.reads.counts()
    return [[{ target: 'replica' }, counts.replica], [{ target: 'primary' }, counts.primaryNoReplica], [{ target: 'primary_after_replica_error' }, counts.primaryAfterReplicaError]]
  })

  if (sources.redis) {
    let fallback = 0
    sources.counters.watch?.((event) => { fallback = event.state === 'fallback' ? 1 : 0 })
    readGauge(registry, 'pa_redis_fallback', '1 while Redis does not answer and rate limits and lockouts use in-process counters', [], () => [[{}, fallback]], 'max')
  }
}
