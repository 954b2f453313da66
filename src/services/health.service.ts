import { VERSION } from '../config/version.js'
import type { CounterStore, CounterStoreEvent } from '../storage/counters/counter-store.js'
import type { ReplicaStatus, Store } from '../storage/db.js'

/**
 * GET /health (docs/api-reference.md "GET /health"): the version, the uptime, and whether each
 * dependency answers — the database always, Redis when one is configured. Both probes run at once
 * and each is given up after HEALTH_PROBE_TIMEOUT_MS, so /health itself answers within that bound
 * whatever the stores do (docs/reliability.md).
 * GET /health/ready asks the database alone, with the same bound: the service serves partners
 * without Redis (fallback counters), so a Redis outage must not take instances out of rotation
 * (docs/reliability.md "Probes").
 */

export type DependencyState = 'ok' | 'unreachable'

export interface HealthReport {
  status: 'ok' | 'error'
  version: string
  database: DependencyState
  /** Present only when REDIS_URL is set. */
  redis?: DependencyState
  uptime_s: number
  /** Present only when read replicas are configured; never makes the status an error. */
  replicas?: Array<{ id: number, state: ReplicaStatus['state'], lag_ms: number | null, skipped: boolean }>
}

/** Whether this instance can serve partners: the database answers (Redis is not needed: fallback counters). */
export interface ReadinessReport {
  status: 'ok' | 'error'
  database: DependencyState
}

export interface HealthService {
  /** GET /health: every dependency. */
  check: () => Promise<HealthReport>
  /** GET /health/ready: the database only, within HEALTH_PROBE_TIMEOUT_MS. */
  ready: () => Promise<ReadinessReport>
  /** Calls `listener` on each switch between Redis and the in-process fallback (the app logs it). */
  watchCounters: (listener: (event: CounterStoreEvent) => void) => void
  /**
   * Calls `listener` on each heavy-read worker failure no request carried (the app logs it; one a
   * request carried is that request's 500, logged with it).
   */
  watchHeavyReads: (listener: (error: Error) => void) => void
}

/** How long each probe waits before calling its dependency unreachable. */
export const HEALTH_PROBE_TIMEOUT_MS = 1000

const startedAt = Date.now()

export function createHealthService (deps: { store: Store, counters?: CounterStore }): HealthService {
  const { store, counters } = deps
  return {
    check: async () => {
      const [database, redis] = await Promise.all([
        probe(async () => { await store.ping() }),
        counters?.ping === undefined ? undefined : probe(async () => { await counters.ping?.() }),
      ])
      return {
        status: database === 'ok' && (redis === undefined || redis === 'ok') ? 'ok' : 'error',
        version: VERSION,
        database,
        ...(redis === undefined ? {} : { redis }),
        uptime_s: Math.floor((Date.now() - startedAt) / 1000),
        ...replicasOf(store),
      }
    },
    ready: async () => {
      const database = await probe(async () => { await store.ping() })
      return { status: database === 'ok' ? 'ok' : 'error', database }
    },
    watchCounters: (listener) => { counters?.watch?.(listener) },
    watchHeavyReads: (listener) => { store.heavy.watchFailures(listener) },
  }
}

/** Each replica as its last check found it (no probe here: the routing checks them continuously). */
function replicasOf (store: Store): Pick<HealthReport, 'replicas'> {
  const replicas = store.reads.replicas()
  if (replicas.length === 0) return {}
  return { replicas: replicas.map((replica) => ({ id: replica.id, state: replica.state, lag_ms: replica.lagMs, skipped: replica.skipped })) }
}

async function probe (check: () => Promise<void>): Promise<DependencyState> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<DependencyState>((resolve) => { timer = setTimeout(() => resolve('unreachable'), HEALTH_PROBE_TIMEOUT_MS) })
  try {
    return await Promise.race([check().then((): DependencyState => 'ok', (): DependencyState => 'unreachable'), timeout])
  } finally {
    clearTimeout(timer)
  }
}
