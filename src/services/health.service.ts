import { VERSION } from '../config/version.js'
import type { CounterStore, CounterStoreEvent } from '../storage/counters/counter-store.js'
import type { Store } from '../storage/db.js'

/**
 * GET /health (docs/api-reference.md "GET /health"): the version, the uptime, and whether each
 * dependency answers — the database always, Redis when one is configured. Both probes run at once
 * and each is given up after HEALTH_PROBE_TIMEOUT_MS, so /health itself answers within that bound
 * whatever the stores do (docs/reliability.md).
 */

export type DependencyState = 'ok' | 'unreachable'

export interface HealthReport {
  status: 'ok' | 'error'
  version: string
  database: DependencyState
  /** Present only when REDIS_URL is set. */
  redis?: DependencyState
  uptime_s: number
}

export interface HealthService {
  check: () => Promise<HealthReport>
  /** Calls `listener` on each switch between Redis and the in-process fallback (the app logs it). */
  watchCounters: (listener: (event: CounterStoreEvent) => void) => void
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
      }
    },
    watchCounters: (listener) => { counters?.watch?.(listener) },
  }
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
