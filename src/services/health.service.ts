import { VERSION } from '../config/version.js'
import type { Store } from '../storage/db.js'

/** GET /health (docs/api-reference.md "GET /health"): the version, the uptime, and whether the store answers. */

export interface HealthReport {
  status: 'ok' | 'error'
  version: string
  database: 'ok' | 'unreachable'
  uptime_s: number
}

export interface HealthService {
  check: () => Promise<HealthReport>
}

/** How long the probe waits for the store before calling it unreachable. */
const DATABASE_PROBE_TIMEOUT_MS = 2000

const startedAt = Date.now()

export function createHealthService (deps: { store: Store }): HealthService {
  return {
    check: async () => {
      const databaseOk = await probe(() => deps.store.ping())
      return {
        status: databaseOk ? 'ok' : 'error',
        version: VERSION,
        database: databaseOk ? 'ok' : 'unreachable',
        uptime_s: Math.floor((Date.now() - startedAt) / 1000),
      }
    },
  }
}

async function probe (check: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), DATABASE_PROBE_TIMEOUT_MS) })
  try {
    return await Promise.race([check().then(() => true), timeout])
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}
